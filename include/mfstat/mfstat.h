/* SPDX-License-Identifier: MIT */
#ifndef MFSTAT_MFSTAT_H
#define MFSTAT_MFSTAT_H

/*
 * The public API of libmfstat, for programs using the library: every public
 * header, layer by layer (docs/architecture.md).  No layer includes this.
 */
#include "mfstat/base/error.h"
#include "mfstat/base/escape.h"
#include "mfstat/base/shares.h"
#include "mfstat/base/strbuf.h"
#include "mfstat/base/strtab.h"
#include "mfstat/base/timefmt.h"
#include "mfstat/base/tz.h"
#include "mfstat/base/zout.h"

#include "mfstat/kb/expr.h"
#include "mfstat/kb/kb.h"

#include "mfstat/input/reader.h"
#include "mfstat/input/sample.h"
#include "mfstat/input/smf.h"

#include "mfstat/report/dedup.h"
#include "mfstat/report/diff.h"
#include "mfstat/report/export.h"
#include "mfstat/report/group.h"
#include "mfstat/report/metrics.h"
#include "mfstat/report/output.h"
#include "mfstat/report/pipeline.h"
#include "mfstat/report/select.h"

#include "mfstat/db/db.h"
#include "mfstat/db/import.h"
#include "mfstat/db/read.h"

#include "mfstat/perf/perf.h"

#include "mfstat/live/stat.h"

#include "mfstat/measure/measure.h"

#endif
