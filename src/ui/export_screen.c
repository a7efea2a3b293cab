/* export_screen.c: what W and :write save, taken from the screen's state
 * (see prompt.h): as a figure for the writers of src/export, what a view of
 * panels shows (the figures, the comparison: its shown()) or else the
 * stepper's stage and head; the trace; and the weights (the trainer's while
 * the training view is open; after it, the session holds the trained ones). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finite.h"
#include "i18n.h"
#include "lesson/lesson.h"
#include "number.h"
#include "trace_json.h"
#include "train.h"
#include "ui/app.h"
#include "ui/classroom.h"
#include "ui/widgets/inspector.h"
#include "ui/widgets/panels.h"
#include "ui/prompt.h"
#include "ui/views/view_train_internal.h"
#include "util.h"

/* The trainer whose weights W saves: the open training view's. */
static const struct av_trainer *open_trainer(const struct av_app *a)
{
	return a->view == &av_view_train && a->train ? a->train->tr : NULL;
}

/* How the weights the stepper shows were trained (the sources of the
 * header's "trained 200 ep", av_app_weights_trained), so that a file says
 * so: --seed alone does not give its numbers. false for weights as drawn,
 * or loaded from a file without a record. */
static bool shown_training(const struct av_app *a, struct av_training_record *r)
{
	const struct av_lesson_state *step;
	int epochs, steps;

	if (av_train_view_weights_trained(a, &epochs, &steps)) {
		av_trainer_record(av_train_view_trainer(a), r);
		return true;
	}
	if (av_classroom_weights_training(a, r))
		return true;
	step = av_lesson_ui_trained_step(a);
	if (step != NULL && av_lesson_training_record(step, r))
		return true;
	return av_session_loaded_training(a->s, r);
}

/* The weights W saves and how they were trained: the open training view's
 * trainer (trained once it took a step), else the stepper's. */
static const struct av_training_record *written_training(const struct av_app *a,
							 struct av_training_record *r)
{
	const struct av_trainer *tr = open_trainer(a);

	if (tr == NULL)
		return shown_training(a, r) ? r : NULL;
	if (tr->epoch == 0 && tr->next_item == 0) {
		/* no step yet: the weights are still the stepper's (a trained
		 * file's, a lesson step's), unless i drew new ones */
		const struct av_params *q = &a->s->params;
		size_t dd = (size_t)q->d_model * q->d_model;
		bool shown = av_trainer_tensor_is(tr, AV_P_W_Q, q->w_q, dd) &&
			     av_trainer_tensor_is(tr, AV_P_W_K, q->w_k, dd);
		return shown && shown_training(a, r) ? r : NULL;
	}
	av_trainer_record(tr, r);
	return r;
}

/* The stem of a view of panels' file name ("figure2"), or NULL. */
static char *shown_stem(struct av_app *a)
{
	struct av_shown shown;
	memset(&shown, 0, sizeof(shown));
	char *cause = NULL;
	bool ok = a->view->shown && a->view->shown(a, &shown, &cause);
	free(cause);
	av_shown_free(&shown);
	return ok ? av_strdup(shown.stem) : NULL;
}

/* The weights file's name, by one rule wherever W w is pressed: the whole
 * epochs the weights written have had, as their "training" record says
 * (written_training: epochs_before + epochs, a loaded file's included),
 * "attnview-weights-epoch203.json"; weights with none (as drawn, or loaded
 * without a record) "attnview-weights.json". The training view's trainer
 * and the stepper's trained weights (back from the training view, a
 * trained file, a lesson's step, a classroom's replay) are named alike. */
static char *weights_name(const struct av_app *a)
{
	struct av_training_record record;
	const struct av_training_record *r = written_training(a, &record);
	long long epochs = r ? (long long)r->epochs_before + r->epochs : 0;

	if (epochs > 0)
		return av_printf("attnview-weights-epoch%lld.json", epochs);
	return av_strdup("attnview-weights.json");
}

char *av_export_default_name(struct av_app *a, enum av_export_format fmt)
{
	const char *ext = av_export_extensions[fmt];
	switch (fmt) {
	case AV_EXPORT_TRACE:
		return av_strdup("attnview-trace.json");
	case AV_EXPORT_WEIGHTS:
		return weights_name(a);
	case AV_EXPORT_CSV: case AV_EXPORT_TEXT: case AV_EXPORT_ANSI: case AV_EXPORT_SVG:
	case AV_EXPORT_COUNT:
		break;
	}
	char *stem = shown_stem(a);
	if (stem) {
		char *name = av_printf("attnview-%s%s", stem, ext);
		free(stem);
		return name;
	}
	const char *stage = av_ui_stage_titles[a->stage];
	if (av_ui_stage_per_head(a->stage))
		return av_printf("attnview-%s-h%d%s", stage, a->head, ext);
	return av_printf("attnview-%s%s", stage, ext);
}

/* The labels along an axis: the sentence's tokens, the keys' (the source's
 * in cross mode), or NULL for dimensions (numbered). */
static char *const *axis_labels(const struct av_trace *t, enum av_axis axis)
{
	if (axis == AV_AXIS_QUERY)
		return t->tokens.text;
	if (axis == AV_AXIS_KEY)
		return t->cfg.mode == AV_MODE_CROSS ? t->source_tokens.text : t->tokens.text;
	return NULL;
}

/* The hidden cells of a part, or NULL when it has none. */
static bool *hidden_cells(const struct av_trace *t, const struct av_part *p)
{
	bool *hidden = NULL;
	for (int r = 0; r < p->rows; r++)
		for (int c = 0; c < p->cols; c++)
			if (av_part_hidden(t, p, r, c)) {
				if (!hidden)
					hidden = av_calloc((size_t)p->rows * p->cols, sizeof(bool));
				hidden[(size_t)r * p->cols + c] = true;
			}
	return hidden;
}

struct figure_text {
	char title[160], settings[256];
	char *formula;
	bool *hidden[AV_FIGURE_MAX];     /* what the matrices' hidden point at */
};

/* "sample · scale dk · T 1 · D 4, H 2 · seed 1": the settings line. */
static void figure_settings(const struct av_app *a, char *buf, size_t size)
{
	const struct av_trace *t = &a->s->trace;
	char T[32];
	av_number_format(T, sizeof(T), t->cfg.temperature, 4);
	/* trained weights say so, in the header's words: the seed alone does
	 * not give these numbers */
	char trained[64] = "", text[48];
	if (av_app_trained_text(a, text, sizeof(text)))
		snprintf(trained, sizeof(trained), " · %s", text);
	snprintf(buf, size, "%s · scale %s · T %s · D %d, H %d · seed %llu%s",
		 a->s->sample.name ? a->s->sample.name : "attnview", av_scale_names[t->cfg.scale],
		 T, t->d_model, t->heads, (unsigned long long)t->cfg.seed, trained);
}

/* The matrices of the stepper's stage and head; none at the tokens stage. */
static int stepper_parts(const struct av_app *a, struct av_part parts[AV_MAX_PARTS])
{
	return a->stage == AV_STAGE_TOKENS ? 0 : av_app_parts(a, parts);
}

static bool no_stepper_matrix(char **cause)
{
	return av_fail(cause, _("the tokens stage has no matrix to write: n steps to one "
			       "(the trace and the weights can be written from any stage)"));
}

static bool build_figure(struct av_app *a, struct av_figure *f, struct figure_text *ft,
			 struct av_part parts[AV_MAX_PARTS], char **cause)
{
	const struct av_trace *t = &a->s->trace;
	int n = stepper_parts(a, parts);
	if (n == 0)
		return no_stepper_matrix(cause);
	memset(f, 0, sizeof(*f));
	/* in the screen's language, as its formula under it and the figures
	 * view's titles: a slide for the class the screen speaks to (the mode
	 * stays as the header writes it) */
	const char *stage = _(av_ui_stage_titles[a->stage]);
	const char *mode = av_mode_names[t->cfg.mode];
	if (av_ui_stage_per_head(a->stage) || t->heads > 1)
		/* TRANSLATORS: a figure file's title: the stage, the head, the
		 * mode ("softmax · head 0 of 2 · causal") */
		snprintf(ft->title, sizeof(ft->title), _("%s · head %d of %d · %s"), stage,
			 a->head, t->heads, mode);
	else
		snprintf(ft->title, sizeof(ft->title), "%s · %s", stage, mode);
	figure_settings(a, ft->settings, sizeof(ft->settings));
	ft->formula = av_insp_formula(t, a->stage, a->head);
	f->title = ft->title;
	f->subtitle = ft->formula;
	f->settings = ft->settings;
	f->n = n;
	for (int i = 0; i < n; i++) {
		const struct av_part *p = &parts[i];
		ft->hidden[i] = hidden_cells(t, p);
		f->m[i] = (struct av_fig_matrix){
			.name = p->name, .data = p->data, .rows = p->rows, .cols = p->cols,
			.stride = p->stride, .row_labels = axis_labels(t, p->row_axis),
			.col_labels = axis_labels(t, p->col_axis), .hidden = ft->hidden[i],
			.weights = p->kind == AV_PART_WEIGHTS, .hidden_as_inf = p->masked_as_inf,
		};
	}
	return true;
}

static void free_figure(struct av_figure *f, struct figure_text *ft)
{
	for (int i = 0; i < f->n; i++)
		free(ft->hidden[i]);
	free(ft->formula);
}

/* The figure in format fmt. SVG goes on a white slide: the light theme's
 * palettes. ANSI text keeps the screen's theme, the one it is drawn with
 * (the colours hold it): loaded again by its name, it was the light theme
 * instead, unsaid, once a --theme file had gone or no longer loaded. */
static char *write_figure(const struct av_app *a, enum av_export_format fmt,
			  struct av_figure *f)
{
	struct av_theme slide;
	memset(&slide, 0, sizeof(slide));
	if (fmt == AV_EXPORT_SVG)
		av_theme_builtin("light", &slide);
	f->theme = fmt == AV_EXPORT_SVG ? &slide : &a->colors.theme;
	char *text = fmt == AV_EXPORT_CSV ? av_figure_csv(f)
		   : fmt == AV_EXPORT_SVG ? av_figure_svg(f)
		   : av_figure_text(f, fmt == AV_EXPORT_ANSI);
	f->theme = NULL;
	av_theme_free(&slide);
	return text;
}

/* A panel of a view as one of the figure's matrices; *hidden gets its
 * hidden cells as the writers want them (true = hidden), or NULL. */
static void panel_matrix(const struct av_panel *pn, struct av_fig_matrix *m, bool **hidden)
{
	const struct av_snapshot *s = &pn->snap;
	*hidden = NULL;
	for (size_t k = 0; k < (size_t)s->rows * s->cols; k++)
		if (!s->mask[k]) {
			if (!*hidden)
				*hidden = av_calloc((size_t)s->rows * s->cols, sizeof(bool));
			(*hidden)[k] = true;
		}
	*m = (struct av_fig_matrix){
		.name = pn->name, .data = s->values, .rows = s->rows, .cols = s->cols,
		.stride = s->cols, .row_labels = s->rows_are_dims ? NULL : s->row_labels,
		.col_labels = s->cols_are_dims ? NULL : s->col_labels, .hidden = *hidden,
		.weights = s->weights, .hidden_as_inf = s->hidden_as_inf,
	};
}

_Static_assert(AV_PANELS_MAX <= AV_FIGURE_MAX, "a figure holds every panel of a view");

/* What a view of panels shows now, into *shown (av_shown_free it, whatever
 * the answer); false + *cause when that is no matrix. */
static bool take_shown(struct av_app *a, struct av_shown *shown, char **cause)
{
	memset(shown, 0, sizeof(*shown));
	if (!a->view->shown(a, shown, cause))
		return false;
	return shown->n > 0 || av_fail(cause, _("this view shows no matrix to write now"));
}

/* What a view of panels shows (the figures, the comparison) as a figure. */
static bool render_shown(struct av_app *a, enum av_export_format fmt, char **text,
			 char **cause)
{
	struct av_shown shown;
	if (!take_shown(a, &shown, cause)) {
		av_shown_free(&shown);
		return false;
	}
	struct av_figure f;
	struct figure_text ft = { .formula = NULL, .hidden = { NULL } };
	memset(&f, 0, sizeof(f));
	figure_settings(a, ft.settings, sizeof(ft.settings));
	f.title = shown.title;
	f.subtitle = shown.formula[0] ? shown.formula : NULL;
	f.settings = ft.settings;
	f.n = shown.n;
	for (int i = 0; i < shown.n; i++)
		panel_matrix(&shown.panels[i], &f.m[i], &ft.hidden[i]);
	*text = write_figure(a, fmt, &f);
	free_figure(&f, &ft);
	av_shown_free(&shown);
	return true;
}

/* inf or nan in p: a weights file or trace of it could not be read back
 * (JSON has no such numbers: they were written as null, with "wrote" said,
 * and --weights refused the file), so it is not written, as --dump refuses. */
static bool params_finite(const struct av_params *p, char **cause)
{
	int id = av_params_first_nonfinite(p);
	if (id < 0)
		return true;
	return av_fail(cause, _("not written: %s holds inf or nan (the training diverged: r "
				"resets, then a smaller learning rate)"), av_param_names[id]);
}

/* The trace of the open training view's trainer: its current weights run
 * on the session's sentence, with how they were trained; the file t back to
 * the stepper and then W t would write (the session's own trace still holds
 * the weights the training started from). */
static bool render_trainer_trace(struct av_app *a, const struct av_trainer *tr, char **text,
				 char **cause)
{
	struct av_trace trace;
	struct av_params used;
	struct av_training_record record;
	if (!av_session_run_params(a->s, &tr->params, &trace, &used, cause))
		return false;
	if (!av_trace_check_finite(&trace, cause)) {
		av_trace_free(&trace);
		av_params_free(&used);
		return false;
	}
	*text = av_export_trace_json(&trace, &used, written_training(a, &record));
	av_trace_free(&trace);
	av_params_free(&used);
	return true;
}

/* Whether what a view of panels shows now has a matrix; false + *cause. */
static bool shown_has_matrix(struct av_app *a, char **cause)
{
	struct av_shown shown;
	bool ok = take_shown(a, &shown, cause);
	av_shown_free(&shown);
	return ok;
}

bool av_export_is_figure(enum av_export_format fmt)
{
	return fmt != AV_EXPORT_TRACE && fmt != AV_EXPORT_WEIGHTS;
}

/* The training view draws no figure; false + *cause there. */
static bool figures_here(const struct av_app *a, char **cause)
{
	return a->view != &av_view_train ||
	       av_fail(cause, _("the figures are the stepper's (t goes back to it); here t and "
				"w write the trace and the trained weights"));
}

/* Whether a figure (CSV, text, ANSI, SVG: one answer for all four) can be
 * written now; false + *cause. */
static bool figure_available(struct av_app *a, char **cause)
{
	struct av_part parts[AV_MAX_PARTS];
	if (!figures_here(a, cause))
		return false;
	if (a->view->shown)
		return shown_has_matrix(a, cause);
	return stepper_parts(a, parts) > 0 || no_stepper_matrix(cause);
}

bool av_export_available(struct av_app *a, enum av_export_format fmt, char **cause)
{
	return !av_export_is_figure(fmt) || figure_available(a, cause);
}

void av_export_offered(struct av_app *a, bool offered[AV_EXPORT_COUNT])
{
	char *cause = NULL;
	bool figures = figure_available(a, &cause);   /* a view's panels built once */
	free(cause);
	for (int f = 0; f < AV_EXPORT_COUNT; f++)
		offered[f] = !av_export_is_figure((enum av_export_format)f) || figures;
}

bool av_export_render(struct av_app *a, enum av_export_format fmt, char **text,
		      char **cause)
{
	const struct av_session *s = a->s;
	const struct av_trainer *tr = open_trainer(a);
	struct av_training_record record;
	if ((fmt == AV_EXPORT_TRACE || fmt == AV_EXPORT_WEIGHTS) &&
	    !params_finite(tr ? &tr->params : &s->params, cause))
		return false;
	if (fmt == AV_EXPORT_TRACE && !tr && !av_trace_check_finite(&s->trace, cause))
		return false;
	switch (fmt) {
	case AV_EXPORT_TRACE:
		if (tr)
			return render_trainer_trace(a, tr, text, cause);
		*text = av_export_trace_json(&s->trace, &s->params,
					     shown_training(a, &record) ? &record : NULL);
		return true;
	case AV_EXPORT_WEIGHTS:
		*text = tr ? av_export_weights_json(&tr->cfg, &tr->params,
						    written_training(a, &record))
			   : av_export_weights_json(&s->cfg, &s->params,
						    written_training(a, &record));
		return true;
	case AV_EXPORT_CSV: case AV_EXPORT_TEXT: case AV_EXPORT_ANSI: case AV_EXPORT_SVG:
	case AV_EXPORT_COUNT:
		break;
	}
	/* render_shown and build_figure say why when there is no matrix:
	 * asking av_export_available first built a view's panels twice */
	if (!figures_here(a, cause))
		return false;
	if (a->view->shown)
		return render_shown(a, fmt, text, cause);
	struct av_figure f;
	struct figure_text ft = { .formula = NULL, .hidden = { NULL } };
	struct av_part parts[AV_MAX_PARTS];
	if (!build_figure(a, &f, &ft, parts, cause))
		return false;
	*text = write_figure(a, fmt, &f);
	free_figure(&f, &ft);
	return true;
}
