/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MFSTAT_H
#define MFSTAT_MFSTAT_H

/* The public API of libmfstat: one header per module. */
#include "mfstat/dedup.h"
#include "mfstat/error.h"
#include "mfstat/escape.h"
#include "mfstat/expr.h"
#include "mfstat/group.h"
#include "mfstat/kb.h"
#include "mfstat/metrics.h"
#include "mfstat/output.h"
#include "mfstat/perf.h"
#include "mfstat/pipeline.h"
#include "mfstat/probe.h"
#include "mfstat/reader.h"
#include "mfstat/sample.h"
#include "mfstat/smf.h"
#include "mfstat/measure.h"
#include "mfstat/stat.h"
#include "mfstat/strbuf.h"
#include "mfstat/strtab.h"
#include "mfstat/timefmt.h"

#endif
