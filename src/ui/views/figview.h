/* figview.h: the figures view (view_figures.c, on F) and the pinned
 * comparison (view_compare.c, on y), as the rest of the screen calls them. */
#ifndef AV_UI_FIGVIEW_H
#define AV_UI_FIGVIEW_H

#include "i18n.h"
#include <stdbool.h>
#include "compare.h"
#include "figures.h"

struct av_app;

/* Opens the figures view at figure 0. */
void av_figures_open(struct av_app *a);
/* Opens it at figure fig (a lesson's step). */
void av_figures_show(struct av_app *a, enum av_figure_kind fig);
void av_figures_free(struct av_app *a);
/* The figure shown (0 when the view is closed): the classroom sends it. */
int av_figures_current(const struct av_app *a);
/* Its focused panel, what y pins (0 when the view is closed); focusing
 * another (the teacher's, for a student; the next draw keeps it within the
 * figure's panels). */
int av_figures_panel(const struct av_app *a);
void av_figures_focus(struct av_app *a, int panel);

/* Panel panel of figure fig as the session stands now: a snapshot of its
 * matrix (out is overwritten; free it). false + *cause when the figure
 * cannot be computed or has no such panel. */
bool av_figures_snapshot(struct av_app *a, enum av_figure_kind fig, int panel,
			 struct av_snapshot *out, char **cause);

/* Pins the stepper's matrix under the cursor (stage, head, part) and
 * opens the comparison; pins figure fig's panel. Both take a copy. */
void av_pin_stepper(struct av_app *a);
/* Pins part part of the stepper's stage and head (av_app_parts), with the
 * cursor on its cell (row, col): for views that show the stepper's
 * matrices laid out their own way (all heads). */
void av_pin_stepper_part(struct av_app *a, int part, int row, int col);
void av_pin_figure(struct av_app *a, enum av_figure_kind fig, int panel);
void av_pin_free(struct av_app *a);
/* The comparison's display (D: 0 pinned|live, 1 pinned|live|Δ, 2 Δ; 0
 * without a pin), and setting it (the teacher's, for a student). */
int av_pin_display(const struct av_app *a);
/* "softmax head 0, self, dk, T=1": what is pinned ("" without a pin). */
void av_pin_describe(const struct av_app *a, char *buf, size_t size);
void av_pin_set_display(struct av_app *a, int display);

#endif
