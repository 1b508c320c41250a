/*
 * release_arguments.c -- after verify: the constant arguments of every
 * release, checked when the query is analysed.
 *
 * The building blocks check their bounds, percentile and epsilon when they
 * run (noisy_aggregates.c), naming themselves: an analyst who wrote
 * ANON_AVG(d, 10, 0) would read about dp_avg, and only at run time, where an
 * anonymized session's errors are replaced by one fixed error
 * (doc/access.md section 5).  So the anonymizer makes the same checks on the
 * released level it built, with the constants folded as the planner will
 * fold them and the epsilon share the plan wrote, and names the ANON_*
 * aggregate of the query.  The run-time checks stay, for direct calls of the
 * building blocks.
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "anonymizer/pipeline.h"
#include "functions/noisy_aggregates.h"

/* The arguments of a built building block, folded like the planner folds them. */
List *
folded_block_arguments(Aggref *block)
{
	List	   *args = NIL;
	ListCell   *lc;

	foreach(lc, block->args)
	{
		TargetEntry *tle = flatCopyTargetEntry((TargetEntry *) lfirst(lc));

		tle->expr = (Expr *) eval_const_expressions(NULL, (Node *) copyObject(tle->expr));
		args = lappend(args, tle);
	}
	return args;
}

void
check_release_arguments(anon_plan *plan, anonymized_level *built)
{
	AttrNumber	resno = list_length(plan->keys) + 1;
	ListCell   *lc;

	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);
		TargetEntry *tle = get_tle_by_resno(built->released->targetList, resno++);

		if (tle == NULL || !IsA(tle->expr, Aggref))
			elog(ERROR, "anonymization query: release %d is not an aggregate", resno - 1);
		anon_dp_check_block_arguments(get_func_name(((Aggref *) tle->expr)->aggfnoid),
									  folded_block_arguments((Aggref *) tle->expr),
									  release->kind->display);
	}
}
