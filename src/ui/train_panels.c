/* train_panels.c: the training view's panels: header, info, loss curve,
 * tracked pair, matrices, histogram, gradients and hint (see view_train.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"
#include "ui/app.h"
#include "ui/chart.h"
#include "ui/draw.h"
#include "ui/heatmap.h"
#include "ui/view_train_internal.h"
#include "util.h"

static attr_t el(const struct av_app *a, enum av_element e)
{
	return av_colors_el(&a->colors, e);
}

static int head_of(const struct av_app *a)
{
	const struct av_trainer *tr = a->train->tr;
	return a->head >= 0 && a->head < tr->cfg.heads ? a->head : 0;
}

/* --- small drawing helpers ------------------------------------------------ */

const char *av_train_panel_arrow(void)
{
	return av_draw_utf8() ? "→" : "->";
}

/* A panel title: the name in the title style, a dim remark after it. */
static void title(struct av_app *a, WINDOW *w, const char *name, const char *remark)
{
	int width = getmaxx(w);
	int x = av_put(w, 0, 0, name, width, el(a, AV_EL_TITLE));
	if (remark && *remark && x + 3 < width) {
		x += av_put(w, 0, x, "  ", width - x, A_NORMAL);
		av_put(w, 0, x, remark, width - x, el(a, AV_EL_DIM));
	}
}

static void fmt_loss(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "%s", isnan(v) ? "nan" : "inf");
	else if (v != 0 && fabs(v) < 1e-4)
		snprintf(buf, size, "%.3e", v);
	else
		snprintf(buf, size, "%.6f", v);
}

static const char *short_name(int id)
{
	static const char *const names[AV_N_PARAMS] = {
		"emb", "pos", "W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o"
	};
	return names[id];
}

static const char *trained_text(const struct av_trainer *tr)
{
	return tr->set.params == AV_TRAIN_ALL ? "all tensors" :
	       tr->cfg.bias ? "W_q W_k W_v + biases" : "W_q W_k W_v";
}

/* --- the header ----------------------------------------------------------- */

void av_train_panel_header(struct av_app *a)
{
	WINDOW *w = a->w_header;
	if (!w || !a->train || !a->train->tr)
		return;
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w);
	char piece[7][64];
	snprintf(piece[0], sizeof(piece[0]), "attnview");
	char *lesson = av_lesson_ui_label(a);   /* "lesson 4/17" in a lesson */
	snprintf(piece[1], sizeof(piece[1]), "%s",
		 lesson ? lesson : a->s->sample.name ? a->s->sample.name : "?");
	free(lesson);
	snprintf(piece[2], sizeof(piece[2]), "%s", av_mode_names[tr->cfg.mode]);
	snprintf(piece[3], sizeof(piece[3]), "D=%d H=%d dh=%d", tr->cfg.d_model, tr->cfg.heads,
		 av_config_head_dim(&tr->cfg));
	snprintf(piece[4], sizeof(piece[4]), "scale=%s", av_scale_names[tr->cfg.scale]);
	snprintf(piece[5], sizeof(piece[5]), "T=%.3g", tr->cfg.temperature);
	snprintf(piece[6], sizeof(piece[6]), "seed=%llu", (unsigned long long)tr->cfg.seed);
	const char *right = "training view";
	int rw = av_text_width(right);
	/* drop the name, the sample and the seed, in that order, until it fits */
	static const int drop[] = { 0, 1, 6 };
	bool gone[7] = { false };
	for (int level = 0;; level++) {
		int total = 0, shown = 0;
		for (int i = 0; i < 7; i++)
			if (!gone[i]) {
				total += av_text_width(piece[i]) + (shown ? 2 : 0);
				shown++;
			}
		if (total + 2 + rw <= width || level == 3)
			break;
		gone[drop[level]] = true;
	}
	char left[512] = "";
	for (int i = 0; i < 7; i++) {
		if (gone[i])
			continue;
		if (left[0])
			strcat(left, "  ");
		strcat(left, piece[i]);
	}
	attr_t at = el(a, AV_EL_HEADER);
	if (width < rw + 12) {
		right = "training";
		rw = av_text_width(right);
	}
	av_fill(w, 0, 0, width, at);
	av_put(w, 0, 0, left, width - rw - 2, at);
	if (width > rw + 1)
		av_put(w, 0, width - rw, right, rw, at | A_BOLD);
}

/* --- info: epoch, loss, state and settings -------------------------------- */

void av_train_panel_info(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int width = getmaxx(w);
	char buf[160], num[32];
	int x = 0;
	if (tv->goal > 0 && tr->epoch <= tv->goal)
		snprintf(buf, sizeof(buf), "epoch %d / %d", tr->epoch, tv->goal);
	else
		snprintf(buf, sizeof(buf), "epoch %d", tr->epoch);
	if (tr->next_item > 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " +%d/%d sentences",
			 tr->next_item, tr->n_items);
	x += av_put(w, 0, x, buf, width - x, el(a, AV_EL_TITLE));
	x += av_put(w, 0, x, "   ", width - x, A_NORMAL);
	double loss = tr->epoch > 0 ? tr->loss[tr->epoch - 1] : tv->loss_now;
	fmt_loss(num, sizeof(num), loss);
	snprintf(buf, sizeof(buf), "loss %s", num);
	x += av_put(w, 0, x, buf, width - x,
		    isfinite(loss) ? el(a, AV_EL_LABEL) : el(a, AV_EL_ERROR));
	if (tr->epoch == 0)
		snprintf(buf, sizeof(buf), " (before training)");
	else
		snprintf(buf, sizeof(buf), " (epoch 1: %.4g)", tr->loss[0]);
	/* the state at the right */
	char state[96];
	if (tv->running && tv->capped)
		snprintf(state, sizeof(state), "%s running %d epochs/tick (%.1f ms a step)",
			 av_draw_utf8() ? "▶" : ">", tv->capped, tv->step_us / 1000);
	else if (tv->running)
		snprintf(state, sizeof(state), "%s running %s", av_draw_utf8() ? "▶" : ">",
			 av_train_speeds[tv->speed].label);
	else
		snprintf(state, sizeof(state), "|| paused (%s)", av_train_speeds[tv->speed].label);
	int sw = av_text_width(state);
	if (x + av_text_width(buf) + 2 + sw <= width)
		x += av_put(w, 0, x, buf, width - x, el(a, AV_EL_DIM));
	if (x + 2 + sw <= width)
		av_put(w, 0, width - sw, state, sw,
		       tv->running ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_DIM));
	else if (x + 10 <= width)
		av_put(w, 0, x + 2, tv->running ? "running" : "paused", width - x - 2,
		       el(a, AV_EL_DIM));

	/* settings, each with its key */
	char lr[32];
	snprintf(lr, sizeof(lr), "%g", tr->set.lr);
	const char *items[][3] = {
		{ "lr ", lr, "[]" },
		{ "", av_optimizer_names[tr->set.optimizer], "o" },
		{ "target ", av_target_names[tr->set.target], "w" },
		{ "init ", av_init_names[tr->cfg.init], "i" },
		{ "trains ", trained_text(tr), "P" },
	};
	int n_items = (int)(sizeof(items) / sizeof(items[0]));
	/* with the keys if they fit, else without */
	bool keys = true;
	int need = 0;
	for (int i = 0; i < n_items; i++)
		need += av_text_width(items[i][0]) + av_text_width(items[i][1]) +
			av_text_width(items[i][2]) + 3;
	if (need > width)
		keys = false;
	x = 0;
	for (int i = 0; i < n_items && x < width; i++) {
		if (i)
			x += av_put(w, 1, x, keys ? "  " : " · ", width - x, el(a, AV_EL_DIM));
		if (keys) {
			x += av_put(w, 1, x, items[i][2], width - x, el(a, AV_EL_HIGHLIGHT));
			x += av_put(w, 1, x, " ", width - x, A_NORMAL);
		}
		x += av_put(w, 1, x, items[i][0], width - x, el(a, AV_EL_DIM));
		x += av_put(w, 1, x, items[i][1], width - x, el(a, AV_EL_NORMAL));
	}
}

/* --- the loss curve ------------------------------------------------------- */

/* A braille (or ASCII) plot of v[0..n) in w's rows y0..y0+rows-1 from column
 * x0, cols wide, in attr. */
static void plot(WINDOW *w, int y0, int x0, int rows, int cols, const double *v, int n,
		 double lo, double hi, attr_t attr)
{
	struct av_canvas c;
	av_canvas_init(&c, cols, rows);
	av_canvas_plot(&c, v, n, lo, hi);
	bool utf8 = av_draw_utf8();
	for (int r = 0; r < rows; r++) {
		for (int col = 0; col < cols; col++) {
			char cell[8];
			av_canvas_cell(&c, col, r, utf8, cell);
			if (strcmp(cell, " ") != 0)
				av_put(w, y0 + r, x0 + col, cell, 1, attr);
		}
	}
	av_canvas_free(&c);
}

void av_train_panel_loss(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	char remark[96];
	snprintf(remark, sizeof(remark), "total_loss, %d sentence%s", tr->n_items,
		 tr->n_items == 1 ? "" : "s");
	title(a, w, "loss", remark);
	int rows = height - 2;
	if (rows < 1)
		return;
	const int lab = 7;
	int cols = width - lab - 1;
	if (cols < 4)
		return;
	attr_t dim = el(a, AV_EL_DIM);
	if (tr->epoch == 0) {
		av_put(w, 1 + rows / 2, lab + 1, "no epoch yet: Space runs, s takes one", cols, dim);
		return;
	}
	double lo, hi;
	av_chart_range(tr->loss, tr->epoch, &lo, &hi);
	char num[32];
	av_chart_number(num, sizeof(num), hi, lab - 1);
	av_put_right(w, 1, 0, num, lab - 1, dim);
	av_chart_number(num, sizeof(num), lo, lab - 1);
	av_put_right(w, rows, 0, num, lab - 1, dim);
	for (int r = 1; r <= rows; r++)
		av_put(w, r, lab, av_draw_utf8() ? "│" : "|", 1, dim);
	plot(w, 1, lab + 1, rows, cols, tr->loss, tr->epoch, lo, hi, el(a, AV_EL_LABEL));
	/* the epoch axis: 0 at the left, the right edge's epoch at the right */
	int capacity = 2 * cols > tr->epoch ? 2 * cols : tr->epoch;
	av_put(w, height - 1, lab + 1, "1", cols, dim);
	snprintf(num, sizeof(num), "epoch %d", capacity);
	int nw = av_text_width(num);
	if (nw + 3 <= cols)
		av_put(w, height - 1, lab + 1 + cols - nw, num, nw, dim);
}

/* --- the tracked pair ----------------------------------------------------- */

static void fmt_score(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%.4f", v);
}

void av_train_panel_track(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	int h = head_of(a), H = tr->cfg.heads;
	attr_t dim = el(a, AV_EL_DIM);
	if (tr->track[0] < 0) {
		title(a, w, "tracked pair", "none");
		if (height > 1)
			av_put(w, 1, 0, "v, a cell, Enter: track that pair", width, dim);
		return;
	}
	char name[160], remark[64];
	snprintf(name, sizeof(name), "%s%s%s", tr->params.vocab[tr->track[0]],
		 av_train_panel_arrow(), tr->params.vocab[tr->track[1]]);
	snprintf(remark, sizeof(remark), "raw score q%sk%s%s", av_draw_utf8() ? "·" : ".",
		 H > 1 ? ", head " : "", "");
	if (H > 1)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark), "%d", h);
	title(a, w, name, remark);
	if (height < 2)
		return;
	/* the sparkline over every epoch so far */
	int n = tr->epoch + 1;
	double *series = av_malloc((size_t)n * sizeof(double));
	for (int e = 0; e < n; e++)
		series[e] = tr->track_history[(size_t)e * H + h];
	double lo, hi;
	av_chart_range(series, n, &lo, &hi);
	char lo_s[32], hi_s[32];
	av_chart_number(lo_s, sizeof(lo_s), lo, 7);
	av_chart_number(hi_s, sizeof(hi_s), hi, 7);
	int x = av_put(w, 1, 0, lo_s, width, dim);
	x += av_put(w, 1, x, " ", width - x, A_NORMAL);
	int sw = width - x - av_text_width(hi_s) - 1;
	if (sw > 0) {
		int *levels = av_malloc((size_t)sw * sizeof(int));
		av_sparkline(series, n, sw, lo, hi, levels);
		int used = 0;
		for (int c = 0; c < sw; c++) {
			if (levels[c] < 0)
				break;
			av_put(w, 1, x + c, av_spark_glyph(levels[c], av_draw_utf8()), 1,
			       el(a, AV_EL_FORMULA));
			used = c + 1;
		}
		free(levels);
		x += used + 1;
		av_put(w, 1, x, hi_s, width - x, dim);
	}
	free(series);
	if (height < 3)
		return;
	/* seed 001's table: epochs 0, 50, 150 (more when there is room) and now */
	static const int few[] = { 0, 50, 150 };
	static const int more[] = { 0, 10, 50, 100, 150, 200 };
	const int *epochs = height >= 10 ? more : few;
	int n_epochs = height >= 10 ? 6 : 3;
	char cur[32];
	fmt_score(cur, sizeof(cur), av_trainer_track_score(tr, h));
	if (height < 7) {
		/* compact: "0: 0.1523  50: 2.3410  150: ·" then "now (37): 1.2345" */
		char line[160] = "";
		for (int i = 0; i < n_epochs; i++) {
			char v[32];
			if (epochs[i] <= tr->epoch)
				fmt_score(v, sizeof(v), tr->track_history[(size_t)epochs[i] * H + h]);
			else
				snprintf(v, sizeof(v), "%s", av_draw_utf8() ? "·" : ".");
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%d: %s",
				 i ? "  " : "", epochs[i], v);
		}
		av_put(w, 2, 0, line, width, el(a, AV_EL_NORMAL));
		if (height > 3) {
			snprintf(line, sizeof(line), "now (epoch %d): %s", tr->epoch, cur);
			av_put(w, 3, 0, line, width, el(a, AV_EL_LABEL));
		}
		return;
	}
	char line[96];
	snprintf(line, sizeof(line), "%9s  %10s", "epoch", "score");
	av_put(w, 2, 0, line, width, dim);
	int y = 3;
	for (int i = 0; i < n_epochs && y < height - 1; i++, y++) {
		char v[32];
		if (epochs[i] <= tr->epoch)
			fmt_score(v, sizeof(v), tr->track_history[(size_t)epochs[i] * H + h]);
		else
			snprintf(v, sizeof(v), "%s", av_draw_utf8() ? "·" : ".");
		snprintf(line, sizeof(line), "%9d  %10s", epochs[i], v);
		av_put(w, y, 0, line, width, el(a, AV_EL_NORMAL));
	}
	snprintf(line, sizeof(line), "now %5d  %10s", tr->epoch, cur);
	av_put(w, y, 0, line, width, el(a, AV_EL_LABEL));
}

/* --- matrices: a sentence's weights, the vocabulary's scores --------------- */

struct matrix {
	int rows, cols;
	const float *v;                 /* (rows, cols) */
	char *const *row_label;
	char *const *col_label;
	bool weights;                   /* 0..1; else signed, over -range..range */
	double range;
	const unsigned char *mark;      /* (rows, cols): a target or pair cell, or NULL */
	const unsigned char *hidden;    /* (rows, cols): a masked cell, or NULL */
	int cur_row, cur_col;           /* the cursor, or -1 */
	int hl_row, hl_col;             /* labels to highlight (the tracked pair), or -1 */
	int label_w, cell_w;            /* fixed sizes (matrices stacked), or 0 */
};

/* Row-label and cell widths for matrices of up to cols columns with labels
 * of up to label_w columns in width: the widest cells that fit (7 to 5, with
 * numbers), then shorter labels (6), then narrower cells without numbers. */
static void choose_cells(int width, int label_w, int cols, int *lw_out, int *cw_out)
{
	int lw = label_w < 3 ? 3 : label_w > 12 ? 12 : label_w;
	int cw = 0;
	for (int pass = 0; pass < 2 && !cw; pass++) {
		int l = pass ? (lw < 6 ? lw : 6) : lw;
		for (int t = 7; t >= (pass ? 2 : 5) && !cw; t--)
			if (l + 1 + cols * t <= width) {
				cw = t;
				lw = l;
			}
	}
	if (!cw) {
		lw = lw < 6 ? lw : 6;
		cw = 2;
	}
	*lw_out = lw;
	*cw_out = cw;
}

static void weight_text(char *buf, size_t size, double v, int width)
{
	snprintf(buf, size, "%.2f", v);
	if ((int)strlen(buf) > width && buf[0] == '0')
		memmove(buf, buf + 1, strlen(buf));      /* ".93" */
	if ((int)strlen(buf) > width)
		snprintf(buf, size, "%.1f", v);
}

/* Draws m in rows y.. of w (a row of column labels, then the matrix),
 * scrolled to keep the cursor in view; returns the rows used. */
static int draw_matrix(struct av_app *a, WINDOW *w, int y, int height, const struct matrix *m)
{
	struct av_colors *c = &a->colors;
	int width = getmaxx(w);
	bool utf8 = av_draw_utf8();
	if (height < 2 || m->rows == 0 || m->cols == 0)
		return 0;
	int lw = m->label_w, cw = m->cell_w;
	if (!lw || !cw) {
		int widest = 3;
		for (int i = 0; i < m->rows; i++) {
			int tw = av_text_width(m->row_label[i]);
			widest = tw > widest ? tw : widest;
		}
		choose_cells(width, widest, m->cols, &lw, &cw);
	}
	int vis_cols = (width - lw - 1) / cw, vis_rows = height - 1;
	if (vis_cols < 1)
		return 0;
	int first_col = 0, first_row = 0;
	if (m->cur_col >= vis_cols)
		first_col = m->cur_col - vis_cols + 1;
	if (m->cur_row >= vis_rows)
		first_row = m->cur_row - vis_rows + 1;
	bool numbers = cw >= 5;
	int decimals = 0;
	bool neg = false;
	for (int i = 0; i < m->rows * m->cols && !m->weights; i++)
		neg |= m->v[i] < 0;
	if (numbers && !m->weights)
		decimals = av_cell_decimals(m->range, neg, cw - 2);
	/* column labels */
	for (int j = first_col; j < m->cols && j < first_col + vis_cols; j++) {
		int x = lw + 1 + (j - first_col) * cw;
		attr_t at = j == m->hl_col ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_LABEL);
		if (j == m->cur_col)
			at = el(a, AV_EL_CURSOR);
		char label[64];
		if (cw >= 4)
			snprintf(label, sizeof(label), "%s", m->col_label[j]);
		else
			snprintf(label, sizeof(label), "%d", j);
		av_put_right(w, y, x, label, cw - 1, at);
	}
	if (first_col + vis_cols < m->cols)
		av_put(w, y, width - 1, utf8 ? "▶" : ">", 1, el(a, AV_EL_DIM));
	if (first_col > 0)
		av_put(w, y, 0, utf8 ? "◀" : "<", 1, el(a, AV_EL_DIM));
	/* rows */
	int used = 1;
	for (int i = first_row; i < m->rows && used < height; i++, used++) {
		int yy = y + used;
		attr_t la = i == m->hl_row ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_LABEL);
		if (i == m->cur_row)
			la = el(a, AV_EL_CURSOR);
		av_put_pad(w, yy, 0, m->row_label[i], lw, la);
		for (int j = first_col; j < m->cols && j < first_col + vis_cols; j++) {
			int x = lw + 1 + (j - first_col) * cw;
			double v = m->v[(size_t)i * m->cols + j];
			bool hidden = m->hidden && m->hidden[(size_t)i * m->cols + j];
			bool marked = m->mark && m->mark[(size_t)i * m->cols + j];
			double pos = av_heat_position(v, m->weights ? AV_PART_WEIGHTS : AV_PART_SIGNED,
						      m->range);
			attr_t heat = hidden ? el(a, AV_EL_MASKED) : av_colors_heat(c, !m->weights, pos);
			bool shade = av_colors_glyphs(c) || (!hidden && heat == A_NORMAL);
			double spos = m->weights ? pos : fabs(2 * pos - 1);
			if (i == m->cur_row && j == m->cur_col)
				heat = el(a, AV_EL_CURSOR);
			char text[48] = "";
			const char *lead = marked ? (utf8 ? "•" : "*")
				       : hidden ? (utf8 ? "╳" : "x")
				       : shade ? av_colors_shade(c, spos) : " ";
			if (numbers && !hidden) {
				if (m->weights)
					weight_text(text, sizeof(text), v, cw - 2);
				else
					av_cell_format(text, sizeof(text), v, decimals, cw - 2);
				av_put(w, yy, x, lead, 1, heat);
				av_put_right(w, yy, x + 1, text, cw - 2, heat);
			} else {
				/* colour (or glyphs) only */
				av_put(w, yy, x, lead, 1, heat);
				for (int k = 1; k < cw - 1; k++)
					av_put(w, yy, x + k, hidden ? " " : shade ?
					       av_colors_shade(c, spos) : " ", 1, heat);
			}
		}
	}
	if (first_row + vis_rows < m->rows)
		av_put(w, y, 0, utf8 ? "▼" : "v", 1, el(a, AV_EL_DIM));
	return used;
}

/* "0 ░▒▓█ 1" or "−2.3 ... +2.3" and what the marks mean, in row y. */
static void draw_map_legend(struct av_app *a, WINDOW *w, int y, bool weights, double range,
			    const char *marks)
{
	struct av_colors *c = &a->colors;
	int width = getmaxx(w);
	attr_t dim = el(a, AV_EL_DIM), label = el(a, AV_EL_LABEL);
	char lo[32], hi[32], r[24];
	av_chart_number(r, sizeof(r), range, 6);
	if (weights) {
		snprintf(lo, sizeof(lo), "0");
		snprintf(hi, sizeof(hi), "1");
	} else {
		snprintf(lo, sizeof(lo), "%s%s", av_draw_utf8() ? "−" : "-", r);
		snprintf(hi, sizeof(hi), "+%s", r);
	}
	int x = av_put(w, y, 0, lo, width, label);
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	for (int i = 0; i < 9 && x < width; i++, x++) {
		av_colors_swatch(w, y, x, 1, c, !weights, i / 8.0);
	}
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	x += av_put(w, y, x, hi, width - x, label);
	if (marks && x + 4 < width) {
		x += av_put(w, y, x, "  ", width - x, A_NORMAL);
		av_put(w, y, x, marks, width - x, dim);
	}
}

/* The first sentence the map shows: all of them when they fit, else from
 * the selected one. */
static int first_shown(const struct av_app *a, int rows)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int need = 0;
	for (int i = 0; i < tr->n_items; i++)
		need += tr->items[i].trace.n + 1;
	return need <= rows ? 0 : tv->sentence;
}

/* The attention weights of the corpus sentences, stacked (one head): each
 * a row of key labels, then its rows; the target cells marked. */
void av_train_panel_sentence_map(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int width = getmaxx(w), height = getmaxy(w);
	int h = head_of(a);
	int rows = height - 2;     /* between the title and the legend */
	int first = first_shown(a, rows);
	/* the sentences that fit, and one size of cells for all of them */
	int last = first, widest = 3, cols = 1, used = 0;
	for (int i = first; i < tr->n_items; i++) {
		const struct av_trace *t = &tr->items[i].trace;
		if (i > first && used + t->n + 1 > rows)
			break;
		used += t->n + 1;
		last = i;
		for (int r = 0; r < t->n; r++) {
			int tw = av_text_width(t->tokens.text[r]);
			widest = tw > widest ? tw : widest;
		}
		cols = t->m > cols ? t->m : cols;
	}
	int lw, cw;
	choose_cells(width, widest, cols, &lw, &cw);

	char remark[160] = "";
	bool all = first == 0 && last == tr->n_items - 1;
	if (tr->cfg.heads > 1)
		snprintf(remark, sizeof(remark), "head %d (Tab)", h);
	if (!all && first == last)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark),
			 "%s#%d of %d (j/k)", remark[0] ? "  " : "", first + 1, tr->n_items);
	else if (!all)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark),
			 "%s#%d-%d of %d (j/k)", remark[0] ? "  " : "", first + 1, last + 1,
			 tr->n_items);
	const char *name = all ? "attention weights" : "attention";
	title(a, w, name, remark);

	bool cross = tr->cfg.mode == AV_MODE_CROSS;
	int y = 1;
	for (int i = first; i <= last && y < height - 1; i++) {
		const struct av_train_item *it = &tr->items[i];
		const struct av_trace *t = &it->trace;
		size_t cells = (size_t)t->n * t->m;
		unsigned char *mark_cells = av_calloc(cells ? cells : 1, 1);
		unsigned char *hidden = av_calloc(cells ? cells : 1, 1);
		for (size_t k = 0; k < cells; k++) {
			mark_cells[k] = it->target[k] > 0.5;
			hidden[k] = !t->mask[k];
		}
		struct matrix m = {
			.rows = t->n, .cols = t->m,
			.v = t->weights + (size_t)h * cells,
			.row_label = t->tokens.text,
			.col_label = cross ? t->source_tokens.text : t->tokens.text,
			.weights = true, .range = 1,
			.mark = mark_cells, .hidden = hidden,
			.cur_row = -1, .cur_col = -1, .hl_row = -1, .hl_col = -1,
			.label_w = lw, .cell_w = cw,
		};
		int got = draw_matrix(a, w, y, height - 1 - y, &m);
		/* the sentence's number before its key labels */
		char num[16];
		snprintf(num, sizeof(num), "#%d", i + 1);
		if (got > 0 && av_text_width(num) < lw)
			av_put(w, y, 0, num, lw, i == tv->sentence && tr->n_items > 1 ?
			       el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_DIM));
		free(mark_cells);
		free(hidden);
		y += got;
	}
	if (y < height) {
		char marks[96];
		snprintf(marks, sizeof(marks), "%s target (%s)", av_draw_utf8() ? "•" : "*",
			 av_target_names[tr->set.target]);
		draw_map_legend(a, w, y, true, 1, marks);
	}
}

static bool is_pair(const struct av_trainer *tr, const char *x, const char *y)
{
	for (int i = 0; i < tr->n_pairs; i++)
		if ((strcmp(tr->pairs[i][0], x) == 0 && strcmp(tr->pairs[i][1], y) == 0) ||
		    (strcmp(tr->pairs[i][1], x) == 0 && strcmp(tr->pairs[i][0], y) == 0))
			return true;
	return false;
}

static const char *divisor_text(const struct av_trainer *tr)
{
	bool utf8 = av_draw_utf8();
	bool t = tr->cfg.temperature != 1;
	switch (tr->cfg.scale) {
	case AV_SCALE_DK: return t ? (utf8 ? "/(√dh·T)" : "/(sqrt(dh)*T)") : (utf8 ? "/√dh" : "/sqrt(dh)");
	case AV_SCALE_DMODEL: return t ? (utf8 ? "/(√D·T)" : "/(sqrt(D)*T)") : (utf8 ? "/√D" : "/sqrt(D)");
	case AV_SCALE_NONE: return t ? "/T" : "";
	}
	return "";
}

void av_train_panel_vocab_map(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int height = getmaxy(w);
	int V = tr->params.vocab_size, h = head_of(a);
	char name[96], remark[64];
	snprintf(name, sizeof(name), "vocabulary: q(a)%sk(b)%s", av_draw_utf8() ? "·" : ".",
		 divisor_text(tr));
	const char *keys = tv->vocab ? "Enter: track" : "v: pick a pair";
	if (tr->cfg.heads > 1)
		snprintf(remark, sizeof(remark), "head %d  %s", h, keys);
	else
		snprintf(remark, sizeof(remark), "%s", keys);
	title(a, w, name, remark);
	if (!tv->vscores || V == 0)
		return;
	const float *v = tv->vscores + (size_t)h * V * V;
	unsigned char *mark = av_calloc((size_t)V * V, 1);
	double range = 0;
	for (int i = 0; i < V; i++)
		for (int j = 0; j < V; j++) {
			double x = v[(size_t)i * V + j];
			if (isfinite(x) && fabs(x) > range)
				range = fabs(x);
			mark[(size_t)i * V + j] = is_pair(tr, tr->params.vocab[i], tr->params.vocab[j]);
		}
	struct matrix m = {
		.rows = V, .cols = V, .v = v,
		.row_label = tr->params.vocab, .col_label = tr->params.vocab,
		.weights = false, .range = range,
		.mark = tr->n_pairs ? mark : NULL,
		.cur_row = tv->vocab ? tv->vrow : -1, .cur_col = tv->vocab ? tv->vcol : -1,
		.hl_row = tr->track[0], .hl_col = tr->track[1],
	};
	int used = draw_matrix(a, w, 1, height - 2, &m);
	free(mark);
	if (used + 1 < height)
		draw_map_legend(a, w, 1 + used, false, range,
				tr->n_pairs ? (av_draw_utf8() ? "• a pair of the sample"
					       : "* a pair of the sample") : NULL);
}

/* --- the histogram -------------------------------------------------------- */

void av_train_panel_hist(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	int width = getmaxx(w), height = getmaxy(w);
	attr_t dim = el(a, AV_EL_DIM);
	char remark[96];
	int bins = tv->bins;
	int max = 0;
	for (int b = 0; b < bins; b++)
		max = tv->hist[b] > max ? tv->hist[b] : max;
	bool alike = tv->hist_n > 1 && tv->hist_hi - tv->hist_lo < 0.1;
	if (alike) {
		title(a, w, "scores all alike", NULL);
		int x = av_text_width("scores all alike") + 2;
		av_put(w, 0, x, "try init xavier (i) or lr x2 (])", width - x, el(a, AV_EL_ERROR));
	} else {
		snprintf(remark, sizeof(remark), "%d scores, %d bins, tallest %d", tv->hist_n, bins,
			 max);
		title(a, w, "all scores", remark);
	}
	int rows = height - 2;
	if (rows < 1 || bins < 1)
		return;
	int bw = width / bins;
	if (bw < 1)
		bw = 1;
	if (bw > 3)
		bw = 3;
	int x0 = (width - bw * bins) / 2;
	bool utf8 = av_draw_utf8();
	for (int b = 0; b < bins; b++) {
		int e = av_bar_eighths(tv->hist[b], max, rows);
		for (int r = 0; r < rows; r++) {
			const char *g = av_bar_glyph(e, r, utf8);
			if (strcmp(g, " ") == 0)
				break;
			for (int k = 0; k < bw && (bw == 1 || k < bw - 1); k++)
				av_put(w, rows - r, x0 + b * bw + k, g, 1, el(a, AV_EL_LABEL));
		}
	}
	/* the axis: the lowest and highest score, and 0 between them */
	char lo[32], hi[32];
	av_chart_number(lo, sizeof(lo), tv->hist_lo, 7);
	av_chart_number(hi, sizeof(hi), tv->hist_hi, 7);
	int span = bw * bins;
	int lw = av_text_width(lo), hw = av_text_width(hi);
	av_put(w, height - 1, x0, lo, width - x0, dim);
	if (lw + hw + 1 <= span)
		av_put(w, height - 1, x0 + span - hw, hi, hw, dim);
	if (tv->hist_lo < 0 && tv->hist_hi > 0) {
		int zx = x0 + (int)(-tv->hist_lo / (tv->hist_hi - tv->hist_lo) * span);
		if (zx > x0 + lw && zx + 1 < x0 + span - hw)
			av_put(w, height - 1, zx, utf8 ? "↑0" : "^0", 2, dim);
	}
}

/* --- gradients ------------------------------------------------------------ */

void av_train_panel_grad(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	attr_t dim = el(a, AV_EL_DIM), err = el(a, AV_EL_ERROR);
	int ids[AV_N_PARAMS], n = 0;
	bool vanishing = false, exploding = false;
	for (int id = 0; id < AV_N_PARAMS; id++) {
		if (!tr->trained[id])
			continue;
		ids[n++] = id;
		enum av_grad_health g = av_trainer_grad_health(tr, id);
		vanishing |= g == AV_GRAD_VANISHING;
		exploding |= g == AV_GRAD_EXPLODING;
	}
	title(a, w, "gradient norms", tr->steps ? "print(W_q.grad)" : "after a step");
	int lines = height - 1;
	if (lines < 1)
		return;
	bool advice = vanishing || exploding;
	int room = advice && lines >= 2 ? lines - 1 : lines;
	int per_line = n <= room ? 1 : 2;
	int colw = per_line == 1 ? width : width / 2;
	for (int k = 0; k < n; k++) {
		int row = 1 + k / per_line, x = (k % per_line) * colw;
		if (row > room)
			break;
		int id = ids[k];
		enum av_grad_health g = av_trainer_grad_health(tr, id);
		char norm[32];
		double v = tr->grad_norm[id];
		if (isnan(v) || tr->steps == 0)
			snprintf(norm, sizeof(norm), "%s", av_draw_utf8() ? "—" : "-");
		else
			snprintf(norm, sizeof(norm), "%.2e", v);
		const char *word = g == AV_GRAD_VANISHING ? "vanishing!"
				   : g == AV_GRAD_EXPLODING ? "exploding!"
				   : g == AV_GRAD_UNUSED ? (per_line == 1 ? "no effect on the loss" : "unused")
				   : tr->steps ? "ok" : "";
		attr_t wa = g == AV_GRAD_VANISHING || g == AV_GRAD_EXPLODING ? err
			    : g == AV_GRAD_UNUSED ? dim : el(a, AV_EL_NORMAL);
		char cell[96];
		if (per_line == 2 && colw < 22) {
			if (colw < 16 && !isnan(v) && tr->steps)
				snprintf(norm, sizeof(norm), "%.0e", v);
			snprintf(cell, sizeof(cell), "%s %s%s", short_name(id), norm,
				 g == AV_GRAD_VANISHING || g == AV_GRAD_EXPLODING ? "!" : "");
		}
		else
			snprintf(cell, sizeof(cell), "%-4s %9s  %s", short_name(id), norm, word);
		av_put(w, row, x, cell, colw - 1, wa);
	}
	if (advice) {
		/* a gradient near 0 once the loss is near 0 is no illness */
		bool learned = tr->epoch > 0 && tr->loss[tr->epoch - 1] < 1e-3 * tr->loss[0];
		const char *text = exploding ? "exploding: lr down ([) or xavier init (i)"
				   : learned ? "vanishing: the loss is ≈ 0, learned"
				   : "vanishing: xavier init (i) or lr up (])";
		av_put(w, lines >= 2 ? height - 1 : 0, 0, text, width, err);
	}
}

void av_train_panel_hint(struct av_app *a, WINDOW *w)
{
	char buf[96];
	snprintf(buf, sizeof(buf), "%d+ columns show the heatmap and the histogram",
		 TWO_COLUMNS);
	av_put(w, 0, 0, buf, getmaxx(w), el(a, AV_EL_DIM));
}
