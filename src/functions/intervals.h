/*
 * intervals.h -- the anon_dp_interval composite (value, lower, upper) of the
 * ANON_*_CI forms (intervals.c).
 */
#ifndef ANON_DP_INTERVALS_H
#define ANON_DP_INTERVALS_H

#include "fmgr.h"

/* An anon_dp_interval, the result type of the function fcinfo calls. */
extern Datum anon_dp_interval_datum(FunctionCallInfo fcinfo, double value,
									double lower, double upper);

#endif							/* ANON_DP_INTERVALS_H */
