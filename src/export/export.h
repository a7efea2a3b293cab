/* export.h: what the screen writes to files (W, or :write), without curses:
 * the trace and the weights as JSON, and a figure (the matrices the stepper
 * shows for one stage and head) as CSV, as plain or ANSI-coloured text and
 * as an SVG picture for a slide. Every writer returns the whole file as a
 * malloc'd string; the caller writes it atomically (av_write_file_atomic).
 * Numbers are written with '.' in every locale (number.h); the words of a
 * figure (titles, legends) are in the messages' language, as on the screen. */
#ifndef AV_EXPORT_H
#define AV_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "attention.h"
#include "theme.h"
#include "trace_json.h"

#define AV_EXPORT_FORMATS(X) \
	X(TRACE, "trace", ".json", 't', "the trace as JSON (as --dump)") \
	X(WEIGHTS, "weights", ".json", 'w', "the weights as JSON (a --weights file)") \
	X(CSV, "csv", ".csv", 'c', "the figure as CSV") \
	X(TEXT, "text", ".txt", 'p', "the figure as plain text") \
	X(ANSI, "ansi", ".ans", 'a', "the figure as ANSI-coloured text") \
	X(SVG, "svg", ".svg", 's', "the figure as an SVG picture")

enum av_export_format {
#define AV_EXPORT_ENUM(name, word, ext, key, help) AV_EXPORT_##name,
	AV_EXPORT_FORMATS(AV_EXPORT_ENUM)
#undef AV_EXPORT_ENUM
	AV_EXPORT_COUNT
};

/* Indexed by format: "trace", ...; NULL-terminated. */
extern const char *const av_export_format_names[];
extern const char *const av_export_extensions[];
extern const char *const av_export_helps[];
extern const char av_export_keys[];

/* The format a file name asks for by its extension (.json is the trace);
 * false when the extension says nothing. */
bool av_export_format_for_path(const char *path, enum av_export_format *fmt);

/* --- JSON ----------------------------------------------------------------- */

/* The --dump document, with a final newline; training (NULL: weights as
 * drawn or loaded) says how the weights were trained, as --train's does. */
char *av_export_trace_json(const struct av_trace *t, const struct av_params *p,
			   const struct av_training_record *training);

/* {"format": "attnview-weights", "version": 1, "config": ..., "params": ...,
 * "training": ...}: what --weights loads ("training" only with training). */
char *av_export_weights_json(const struct av_config *cfg, const struct av_params *p,
			     const struct av_training_record *training);

/* --- figures -------------------------------------------------------------- */

#define AV_FIGURE_MAX 4

/* One (rows, cols) matrix: cell (r, c) is data[r * stride + c]. */
struct av_fig_matrix {
	const char *name;                 /* "weights_h" */
	const float *data;
	int rows, cols, stride;
	char *const *row_labels;          /* tokens, or NULL for 0, 1, ... */
	char *const *col_labels;
	const bool *hidden;               /* rows * cols: a hidden key, or NULL */
	bool weights;                     /* 0..1 (sequential colours), else signed */
	bool hidden_as_inf;               /* hidden cells are −∞ (the masked stage) */
};

struct av_figure {
	const char *title;                /* "softmax · head 0 of 2" */
	const char *subtitle;             /* the formula, or NULL */
	const char *settings;             /* "mode self · scale dk · T 1 · seed 1" */
	int n;
	struct av_fig_matrix m[AV_FIGURE_MAX];
	const struct av_theme *theme;     /* colours of ANSI text and SVG */
};

/* CSV (RFC 4180): per matrix a header row (its name, then the column
 * labels) and a row per row label; matrices are separated by an empty line.
 * Numbers as %.9g (float32 reads back exactly); hidden −∞ cells as -inf.
 * A label starting with = + - @ Tab or CR is written "'..." so that a
 * spreadsheet shows it as text, not a formula. */
char *av_figure_csv(const struct av_figure *f);

/* The figure as the screen shows it, as text: titles, then each matrix with
 * its labels and the numbers right-aligned; ansi colours each cell with the
 * theme's palette (xterm 256 colours). */
char *av_figure_text(const struct av_figure *f, bool ansi);

/* An SVG heatmap of each matrix: labels, the numbers in the cells (when
 * the matrix is narrow enough), a colour legend, the title; a white page. */
char *av_figure_svg(const struct av_figure *f);

/* XML-escapes s into a malloc'd string: & < > " ' as entities, control
 * characters and invalid UTF-8 as U+FFFD (XML 1.0 forbids them). */
char *av_xml_escape(const char *s);

#endif
