/* print_table.h: one stage as a labelled text table (--print), like seed
 * 000's print_tensor_info: name, shape and dtype, then the values with rows
 * and columns named by token, optionally with ANSI heatmap colours. */
#ifndef AV_PRINT_TABLE_H
#define AV_PRINT_TABLE_H

#include <stdbool.h>
#include <stdio.h>
#include "attention.h"

/* The stage names of --print, NULL-terminated. */
extern const char *const av_stage_names[];

/* Whether stage is one of names (NULL-terminated: av_stage_names, or a real
 * model's own list); false with "unknown stage \"x\" (stages: ...)". */
bool av_stage_name_check(const char *const names[], const char *stage, char **cause);

/* Prints stage (one of av_stage_names) of t; head is used by the per-head
 * stages (scores, scaled, masked, weights, context). Numbers use the
 * decimal point in every locale. A value that is not finite is shown as
 * inf, -inf or nan; the table is printed whole, then false with a message
 * naming the first stage that is not finite and why (see finite.h). */
bool av_print_stage(FILE *out, const struct av_trace *t, const char *stage, int head,
		    bool color, char **cause);

#endif
