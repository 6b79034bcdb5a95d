/* SPDX-License-Identifier: MIT */
/*
 * What a group costs (issue 26): group blocks carved from the grouper's arena, not malloc'd one
 * by one; groups moved between groupers (-j parts) keep their blocks; counted, never timed.
 */
#include <malloc.h>

#include "pipeline.h"

MF_TEST_KB_FIXTURE()

#define NSERIES 500
#define NINTERVALS 100 /* 50,000 groups at the finest grain */

/* Bytes the C library's malloc hands out now (heap and its own mappings). */
static size_t malloc_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* The sample of series k (its own system and LPAR, CPU k % 4) in interval t, as one reading thread sees it. */
static void fill(struct mf_sample *s, struct mf_strtab *tab, size_t k, size_t t)
{
	char name[32];
	int len;
	mf_sample_reset(s);
	s->family = mf_kb_family(kb, "z16");
	len = snprintf(name, sizeof(name), "SYS%zu", k % 20);
	s->system = mf_strtab_intern(tab, name, (size_t)len);
	len = snprintf(name, sizeof(name), "LP%zu", k);
	s->lpar = mf_strtab_intern(tab, name, (size_t)len);
	s->pool = MF_POOL_GCP;
	s->cpu = (int64_t)(k % 4);
	s->has_start = true;
	s->start_us = (int64_t)t * 900000000;
	s->seconds = 900;
	s->n = 3;
	s->slot[0] = 0;
	s->value[0] = 1000 * k + t;
	s->slot[1] = 1;
	s->value[1] = 7 + t;
	s->slot[2] = 5;
	s->value[2] = k;
}

/* Every group of g matches its sample alone: keys, sums, presence, CPU and interval. */
static void check_groups(struct mf_grouper *g, const struct mf_strtab *tab, size_t want)
{
	struct mf_group *const *gs;
	size_t n, i;
	gs = mf_grouper_groups(g, tab, &n);
	assert_int_equal(n, want);
	for (i = 0; i < n; i++) {
		const struct mf_group *grp = gs[i];
		size_t t = (size_t)(grp->start_us / 900000000), k = (size_t)grp->sum[5];
		assert_int_equal(grp->rows, 1);
		assert_int_equal(grp->sum[0], 1000 * k + t);
		assert_int_equal(grp->sum[1], 7 + t);
		assert_int_equal(grp->sum[2], 0);
		assert_int_equal(grp->cpu, -1);
		assert_int_equal(grp->present_all[0], (1u << 0) | (1u << 1) | (1u << 5));
		assert_int_equal(grp->present_any[0], (1u << 0) | (1u << 1) | (1u << 5));
		assert_int_equal(grp->overflow[0], 0);
		assert_int_equal(mf_group_cpus(grp), 1);
		assert_true(mf_group_interval_seconds(grp) == 900);
	}
}

/*
 * 50,000 groups of one sample each (the finest grain): the blocks come from a few large chunks,
 * and malloc hands out only the table and the list (tens of bytes a group, where a malloc per
 * group took 1,200 bytes and more, and one more for its one CPU).
 */
static void blocks_from_arena(void **state)
{
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_grouper *g;
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_grouper_mem m;
	size_t k, t, before, after, n = (size_t)NSERIES * NINTERVALS;
	(void)state;
	assert_non_null(tab);
	assert_non_null(s);
	before = malloc_bytes();
	g = mf_grouper_new(MF_BY_DEFAULT);
	assert_non_null(g);
	for (t = 0; t < NINTERVALS; t++)
		for (k = 0; k < NSERIES; k++) {
			fill(s, tab, k, t);
			assert_int_equal(mf_grouper_add(g, s), 0);
		}
	after = malloc_bytes();
	/* The list (8 bytes a group, doubled) and the table (8 bytes a slot, at most 4 a group). */
	print_message("malloc: %zu bytes a group\n", (after - before) / n);
	if (after > before)
		assert_true((after - before) / n <= 64);
	mf_grouper_memory(g, &m);
	assert_int_equal(m.groups, n);
	assert_true(m.chunks <= 16);
	assert_int_equal(m.side_allocs, 0); /* one CPU and one interval a group: kept in its block */
	/* Beside its sums and three bitmaps, a group of one interval keeps at most 320 bytes (352 before). */
	{
		size_t nc = mf_kb_family(kb, "z16")->ncounters;
		print_message("block: %zu bytes a group, %zu beside the sums\n", m.block_bytes / n,
			      m.block_bytes / n - (nc + 3 * ((nc + 63) / 64)) * sizeof(uint64_t));
		assert_true(m.block_bytes / n - (nc + 3 * ((nc + 63) / 64)) * sizeof(uint64_t) <= 320);
	}
	assert_true(m.block_bytes <= m.arena_bytes);
	assert_true(m.arena_bytes - m.block_bytes <= ((size_t)8 << 20)); /* at most the newest chunk unused */
	check_groups(g, tab, n);
	mf_grouper_free(g);
	mf_strtab_free(tab);
	free(s);
}

/*
 * As -j 2 reads: two parts group their halves under their own names; the whole takes them
 * (moving the groups only one part has, adding up the shared ones); one part is freed before
 * the whole, the other after: the blocks live as long as a grouper holds them.  The result is the grouping of one read.
 */
static void arena_take_parts(void **state)
{
	struct mf_strtab *wt = mf_strtab_new(), *pt[2] = {mf_strtab_new(), mf_strtab_new()};
	struct mf_grouper *whole = mf_grouper_new(MF_BY_DEFAULT), *g = mf_grouper_new(MF_BY_DEFAULT);
	struct mf_grouper *part[2] = {mf_grouper_new(MF_BY_DEFAULT), mf_grouper_new(MF_BY_DEFAULT)};
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_group *const *gg;
	struct mf_grouper_mem m;
	size_t k, t, i, n, p;
	(void)state;
	assert_non_null(s);
	mf_strtab_intern(pt[1], "SYS19", 5); /* part 1 names in another order */
	for (t = 0; t < NINTERVALS; t++)
		for (k = 0; k < NSERIES; k++) {
			/* The first half of the intervals to part 0, the rest to part 1, interval 49 to both. */
			for (p = 0; p < 2; p++) {
				if ((p == 0 && t >= NINTERVALS / 2) || (p == 1 && t < NINTERVALS / 2 - 1))
					continue;
				fill(s, pt[p], k, t);
				assert_int_equal(mf_grouper_add(part[p], s), 0);
				fill(s, wt, k, t);
				assert_int_equal(mf_grouper_add(whole, s), 0);
			}
		}
	for (p = 0; p < 2; p++) {
		uint32_t *map = calloc(NSERIES + 64, sizeof(*map));
		const char *name;
		assert_non_null(map);
		for (i = 1; (name = mf_strtab_get(pt[p], (uint32_t)i)) != NULL; i++)
			map[i] = mf_strtab_intern(wt, name, strlen(name));
		assert_int_equal(mf_grouper_take_ids(g, part[p], map, i), 0);
		free(map);
	}
	mf_grouper_free(part[0]); /* before the whole: its moved groups live on */
	mf_grouper_memory(g, &m);
	assert_int_equal(m.groups, (size_t)NSERIES * NINTERVALS);
	assert_true(m.chunks <= 32);
	assert_groupers_alike(g, whole, wt, 6);
	/* Added to after the take: the moved groups are found and grow. */
	fill(s, wt, 3, 70);
	assert_int_equal(mf_grouper_add(g, s), 0);
	s->cpu = 9;
	assert_int_equal(mf_grouper_add(g, s), 0);
	gg = mf_grouper_groups(g, wt, &n);
	assert_int_equal(n, (size_t)NSERIES * NINTERVALS); /* no new group */
	for (i = 0; i < n; i++)
		if (gg[i]->start_us == (int64_t)70 * 900000000 && gg[i]->sum[0] == 3 * (1000 * 3 + 70)) {
			assert_int_equal(gg[i]->rows, 3);
			assert_int_equal(mf_group_cpus(gg[i]), 2);
		}
	/* Into an empty grouper under the same names, the part's tables are taken whole. */
	{
		struct mf_grouper *one = mf_grouper_new(MF_BY_DEFAULT), *into = mf_grouper_new(MF_BY_DEFAULT);
		uint32_t id[NSERIES + 64];
		for (i = 0; i < NSERIES + 64; i++)
			id[i] = (uint32_t)i;
		for (t = 0; t < NINTERVALS; t++)
			for (k = 0; k < NSERIES; k++) {
				fill(s, wt, k, t);
				assert_int_equal(mf_grouper_add(one, s), 0);
			}
		assert_int_equal(mf_grouper_take_ids(into, one, id, NSERIES + 64), 0);
		mf_grouper_free(one);
		check_groups(into, wt, (size_t)NSERIES * NINTERVALS);
		mf_grouper_free(into);
	}
	mf_grouper_free(g);
	mf_grouper_free(part[1]); /* after the whole: what it kept is still its own to free */
	mf_grouper_free(whole);
	mf_strtab_free(wt);
	mf_strtab_free(pt[0]);
	mf_strtab_free(pt[1]);
	free(s);
}

/* The sample of series k in interval t with every counter of z16, values spread by k, t and slot. */
static void fill_all(struct mf_sample *s, struct mf_strtab *tab, size_t k, size_t t)
{
	const struct mf_family *fam = mf_kb_family(kb, "z16");
	size_t i;
	fill(s, tab, k, t);
	s->cpsp = 5200;
	s->n = fam->ncounters;
	for (i = 0; i < fam->ncounters; i++) {
		s->slot[i] = (uint16_t)i;
		s->value[i] = 1000000 + (uint64_t)((k * 7919 + t * 104729 + i * 31) % 1000003) * (i + 1);
	}
}

/*
 * --metrics CPI,PRBSTATE,L1MP,L2P (issue 26, item 2a): with the layout mf_metrics_layout gives,
 * a z16 group keeps the sums of the counters the metrics read, not all 98 (1,152 bytes a group
 * before; each block now well under half of it), and every metric computed, its doubts and
 * reasons, is what it is with every sum: groups of one sample, of two (the -j parts' groups
 * added up by mf_grouper_take_ids), and a counter no metric reads that overflows 64 bits (the
 * group's doubt is the same; which other unread slots it marks is the bound's, see group.h).
 */
static void sums_kept_by_layout(void **state)
{
	const struct mf_family *fam = mf_kb_family(kb, "z16");
	const char *names[] = {"CPI", "PRBSTATE", "L1MP", "L2P"};
	unsigned char *need = mf_metrics_needed(fam, names, 4);
	struct mf_sum_layout lay;
	struct mf_strtab *tab = mf_strtab_new(), *pt[2] = {mf_strtab_new(), mf_strtab_new()};
	struct mf_grouper *full = mf_grouper_new(MF_BY_DEFAULT), *dense = mf_grouper_new(MF_BY_DEFAULT);
	struct mf_grouper *part[2] = {mf_grouper_new(MF_BY_DEFAULT), mf_grouper_new(MF_BY_DEFAULT)};
	struct mf_grouper *merged = mf_grouper_new(MF_BY_DEFAULT);
	struct mf_sample *s = calloc(1, sizeof(*s));
	struct mf_grouper_mem m;
	struct mf_group *const *gf, *const *gd, *const *gm;
	size_t k, t, i, j, p, n, nd, nm, unread = MF_SUM_NONE;
	const size_t ng = (size_t)NSERIES * NINTERVALS;
	(void)state;
	assert_non_null(need);
	assert_non_null(s);
	assert_true(mf_metrics_layout(fam, need, &lay));
	print_message("z16, CPI,PRBSTATE,L1MP,L2P: %zu sums of %zu\n", lay.nsums, fam->ncounters);
	assert_true(lay.nsums > 0 && lay.nsums <= 24);
	for (i = 0; i < fam->ncounters && unread == MF_SUM_NONE; i++)
		if (lay.index[i] == MF_SUM_NONE)
			unread = i;
	mf_grouper_set_layouts(dense, &lay, 1);
	for (p = 0; p < 2; p++)
		mf_grouper_set_layouts(part[p], &lay, 1);
	mf_grouper_set_layouts(merged, &lay, 1);
	for (t = 0; t < NINTERVALS; t++)
		for (k = 0; k < NSERIES; k++) {
			fill_all(s, tab, k, t);
			if (k == 7 && t == 3)
				s->value[unread] = UINT64_MAX - 5; /* twice: its sum overflows */
			assert_int_equal(mf_grouper_add(full, s), 0);
			assert_int_equal(mf_grouper_add(dense, s), 0);
			if (t == 3 || k == 7) { /* these groups take a second row: the sums add up */
				if (k == 7 && t == 3)
					s->value[unread] = 9;
				s->value[0] += 3;
				assert_int_equal(mf_grouper_add(full, s), 0);
				assert_int_equal(mf_grouper_add(dense, s), 0);
			}
		}
	/* As -j 2: each part reads its half; interval 3's second rows go to the other part. */
	for (t = 0; t < NINTERVALS; t++)
		for (k = 0; k < NSERIES; k++)
			for (j = 0; j < 2; j++) {
				p = t < NINTERVALS / 2 ? 0 : 1;
				if (j == 1 && !(t == 3 || k == 7))
					break;
				if (j == 1 && t == 3)
					p = 1;
				fill_all(s, pt[p], k, t);
				if (k == 7 && t == 3)
					s->value[unread] = j ? 9 : UINT64_MAX - 5;
				if (j)
					s->value[0] += 3;
				assert_int_equal(mf_grouper_add(part[p], s), 0);
			}
	for (p = 0; p < 2; p++) {
		uint32_t *map = calloc(NSERIES + 64, sizeof(*map));
		const char *name;
		assert_non_null(map);
		for (i = 1; (name = mf_strtab_get(pt[p], (uint32_t)i)) != NULL; i++)
			map[i] = mf_strtab_intern(tab, name, strlen(name));
		assert_int_equal(mf_grouper_take_ids(merged, part[p], map, i), 0);
		free(map);
	}
	mf_grouper_memory(dense, &m);
	print_message("block: %zu bytes a group (all sums: 1,152)\n", m.block_bytes / ng);
	assert_int_equal(m.groups, ng);
	assert_true(m.block_bytes / ng <= 320 + (lay.nsums + 1 + 3 * 2) * sizeof(uint64_t) + 16);
	assert_true(m.block_bytes / ng <= 576);
	gf = mf_grouper_groups(full, tab, &n);
	gd = mf_grouper_groups(dense, tab, &nd);
	gm = mf_grouper_groups(merged, tab, &nm);
	assert_int_equal(n, ng);
	assert_int_equal(nd, ng);
	assert_int_equal(nm, ng);
	for (i = 0; i < n; i++) {
		const struct mf_group *other[2] = {gd[i], gm[i]};
		struct mf_result rf, rd;
		double vf[128], vd[128];
		struct mf_na naf[128], nad[128];
		assert_true(fam->nmetrics <= 128);
		memset(&rf, 0, sizeof(rf));
		rf.value = vf;
		rf.na = naf;
		mf_metrics_compute_some(kb, gf[i], NULL, need, &rf);
		for (p = 0; p < 2; p++) {
			const struct mf_group *g2 = other[p];
			assert_int_equal(g2->rows, gf[i]->rows);
			assert_memory_equal(g2->present_all, gf[i]->present_all, gf[i]->nwords * sizeof(uint64_t));
			assert_memory_equal(g2->present_any, gf[i]->present_any, gf[i]->nwords * sizeof(uint64_t));
			for (j = 0; j < fam->ncounters; j++)
				if (lay.index[j] != MF_SUM_NONE) {
					assert_int_equal(mf_group_sum(g2, j), gf[i]->sum[j]);
					assert_int_equal(g2->overflow[j >> 6] >> (j & 63) & 1,
							 gf[i]->overflow[j >> 6] >> (j & 63) & 1);
				} else {
					assert_int_equal(mf_group_sum(g2, j), 0);
				}
			memset(&rd, 0, sizeof(rd));
			rd.value = vd;
			rd.na = nad;
			mf_metrics_compute_some(kb, g2, NULL, need, &rd);
			assert_int_equal(rd.doubts, rf.doubts);
			assert_int_equal(rd.negative_metric, rf.negative_metric);
			assert_int_equal(rd.partial_slot, rf.partial_slot);
			for (j = 0; j < fam->nmetrics; j++) {
				assert_memory_equal(&vd[j], &vf[j], sizeof(double));
				assert_int_equal(nad[j].why, naf[j].why);
			}
		}
		if (gf[i]->overflow[unread >> 6] >> (unread & 63) & 1)
			assert_true(rf.doubts & MF_DOUBT_OVERFLOW);
	}
	/* The overflow of a sum not kept is found (series 7, interval 3), and only there. */
	for (i = 0, j = 0; i < n; i++)
		j += gd[i]->overflow[unread >> 6] >> (unread & 63) & 1;
	assert_int_equal(j, 1);
	mf_grouper_free(full);
	mf_grouper_free(dense);
	mf_grouper_free(merged);
	mf_grouper_free(part[0]);
	mf_grouper_free(part[1]);
	mf_strtab_free(tab);
	mf_strtab_free(pt[0]);
	mf_strtab_free(pt[1]);
	free(need);
	free(s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Sorting ranks the names once: the order is still that of the names (not of their ids, here
 * interned in reverse), with no name first, with and without threads.
 */
static void sort_by_name_ranks(void **state)
{
	struct mf_strtab *tab = mf_strtab_new();
	struct mf_sample *s = calloc(1, sizeof(*s));
	const char *names[] = {"b", "a", "ab", "B", "zz", "a0", "Z", "aa"};
	const size_t nn = sizeof(names) / sizeof(names[0]);
	const char *sorted[sizeof(names) / sizeof(names[0])];
	size_t jobs, i, k, t, n;
	(void)state;
	assert_non_null(s);
	memcpy(sorted, names, sizeof(names));
	qsort(sorted, nn, sizeof(sorted[0]), cmp_str);
	for (i = nn; i-- > 0;)
		mf_strtab_intern(tab, names[i], strlen(names[i]));
	for (jobs = 1; jobs <= 2; jobs++) {
		struct mf_grouper *g = mf_grouper_new(MF_BY_DEFAULT);
		struct mf_group *const *gs;
		assert_non_null(g);
		/* 8,192 groups and more, so that two threads sort: every system with every LPAR and none. */
		for (t = 0; t < 120; t++)
			for (i = 0; i < nn; i++)
				for (k = 0; k <= nn; k++) {
					mf_sample_reset(s);
					s->family = mf_kb_family(kb, "z16");
					s->system = mf_strtab_intern(tab, names[i], strlen(names[i]));
					s->lpar = k < nn ? mf_strtab_intern(tab, names[k], strlen(names[k])) : 0;
					s->has_start = true;
					s->start_us = (int64_t)(119 - t) * 900000000;
					assert_int_equal(mf_grouper_add(g, s), 0);
				}
		gs = mf_grouper_sort(g, tab, jobs, &n);
		assert_int_equal(n, 120 * nn * (nn + 1));
		for (i = 0; i < n; i++) {
			size_t sys = i / (120 * (nn + 1)), lp = i / 120 % (nn + 1);
			assert_string_equal(mf_strtab_get(tab, gs[i]->system), sorted[sys]);
			if (lp == 0)
				assert_null(mf_strtab_get(tab, gs[i]->lpar));
			else
				assert_string_equal(mf_strtab_get(tab, gs[i]->lpar), sorted[lp - 1]);
			assert_int_equal(gs[i]->start_us, (int64_t)(i % 120) * 900000000);
		}
		mf_grouper_free(g);
	}
	mf_strtab_free(tab);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocks_from_arena),
		cmocka_unit_test(arena_take_parts),
		cmocka_unit_test(sort_by_name_ranks),
		cmocka_unit_test(sums_kept_by_layout),
	};
	return cmocka_run_group_tests(tests, kb_setup, kb_teardown);
}
