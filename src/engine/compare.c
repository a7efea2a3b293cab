/* compare.c: snapshots of a matrix and their differences (see compare.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "compare.h"
#include "util.h"

static char **empty_labels(int n)
{
	char **l = av_calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
	for (int i = 0; i < n; i++)
		l[i] = av_strdup("");
	return l;
}

void av_snapshot_alloc(struct av_snapshot *s, int rows, int cols)
{
	memset(s, 0, sizeof(*s));
	s->rows = rows;
	s->cols = cols;
	size_t cells = (size_t)rows * (size_t)cols;
	s->values = av_calloc(cells ? cells : 1, sizeof(float));
	s->mask = av_calloc(cells ? cells : 1, 1);
	memset(s->mask, 1, cells);
	s->row_labels = empty_labels(rows);
	s->col_labels = empty_labels(cols);
	s->cfg.temperature = 1.0;
}

void av_snapshot_label(struct av_snapshot *s, bool row, int i, const char *text)
{
	char **labels = row ? s->row_labels : s->col_labels;
	int n = row ? s->rows : s->cols;
	if (i < 0 || i >= n)
		return;
	free(labels[i]);
	labels[i] = av_strdup(text ? text : "");
}

void av_snapshot_fill(struct av_snapshot *s, const float *data, int stride,
		      const unsigned char *mask, int mask_stride)
{
	for (int r = 0; r < s->rows; r++) {
		memcpy(s->values + (size_t)r * s->cols, data + (size_t)r * stride,
		       (size_t)s->cols * sizeof(float));
		if (mask)
			memcpy(s->mask + (size_t)r * s->cols, mask + (size_t)r * mask_stride,
			       (size_t)s->cols);
		else
			memset(s->mask + (size_t)r * s->cols, 1, (size_t)s->cols);
	}
}

void av_snapshot_copy(struct av_snapshot *dst, const struct av_snapshot *src)
{
	av_snapshot_alloc(dst, src->rows, src->cols);
	char **rl = dst->row_labels, **cl = dst->col_labels;
	float *v = dst->values;
	unsigned char *m = dst->mask;
	*dst = *src;
	dst->row_labels = rl;
	dst->col_labels = cl;
	dst->values = v;
	dst->mask = m;
	size_t cells = (size_t)src->rows * (size_t)src->cols;
	memcpy(dst->values, src->values, cells * sizeof(float));
	memcpy(dst->mask, src->mask, cells);
	for (int i = 0; i < src->rows; i++)
		av_snapshot_label(dst, true, i, src->row_labels[i]);
	for (int i = 0; i < src->cols; i++)
		av_snapshot_label(dst, false, i, src->col_labels[i]);
}

void av_snapshot_free(struct av_snapshot *s)
{
	for (int i = 0; s->row_labels && i < s->rows; i++)
		free(s->row_labels[i]);
	for (int i = 0; s->col_labels && i < s->cols; i++)
		free(s->col_labels[i]);
	free(s->row_labels);
	free(s->col_labels);
	free(s->values);
	free(s->mask);
	memset(s, 0, sizeof(*s));
}

void av_snapshot_describe(const struct av_snapshot *s, char *buf, size_t size)
{
	char trained[64] = "";
	/* TRANSLATORS: between the parts of a pinned matrix's description
	 * ("softmax head 0, causal, dk, T=1"): the comma the translation of
	 * ", trained %d epoch" after them uses */
	const char *comma = C_("pinned matrix", ", ");
	if (s->epochs > 0)
		snprintf(trained, sizeof(trained), P_(", trained %d epoch", ", trained %d epochs",
						      s->epochs), s->epochs);
	snprintf(buf, size, "%s%s%s%s%s%sT=%.3g%s", s->what, comma, av_mode_names[s->cfg.mode],
		 comma, av_scale_names[s->cfg.scale], comma, s->cfg.temperature, trained);
}

static bool labels_equal(char **a, char **b, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

bool av_snapshot_diff(struct av_diff *d, const struct av_snapshot *live,
		      const struct av_snapshot *pinned, char **cause)
{
	memset(d, 0, sizeof(*d));
	if (live->rows != pinned->rows || live->cols != pinned->cols)
		return av_fail(cause, _("shapes differ: pinned %d×%d, live %d×%d, so there is no "
			       "difference to take"), pinned->rows, pinned->cols, live->rows,
			       live->cols);
	d->rows = live->rows;
	d->cols = live->cols;
	size_t cells = (size_t)d->rows * (size_t)d->cols;
	d->delta = av_calloc(cells ? cells : 1, sizeof(float));
	d->state = av_calloc(cells ? cells : 1, 1);
	d->max_row = d->max_col = -1;
	bool inf = live->hidden_as_inf || pinned->hidden_as_inf;
	for (size_t k = 0; k < cells; k++) {
		bool hl = !live->mask[k], hp = !pinned->mask[k];
		d->state[k] = hl && hp ? AV_DIFF_HIDDEN_BOTH : hl ? AV_DIFF_HIDDEN_LIVE
			      : hp ? AV_DIFF_HIDDEN_PINNED : AV_DIFF_BOTH;
		double delta = (double)live->values[k] - (double)pinned->values[k];
		d->delta[k] = (float)delta;
		if (hl != hp)
			d->visibility_changed++;
		if (delta != 0)
			d->changed++;
		/* -1e20 minus a number is no number to rank */
		if (inf && (hl || hp))
			continue;
		if (fabs(delta) > d->max_abs) {
			d->max_abs = fabs(delta);
			d->max_row = (int)(k / (size_t)d->cols);
			d->max_col = (int)(k % (size_t)d->cols);
		}
	}
	d->labels_differ = !labels_equal(live->row_labels, pinned->row_labels, d->rows) ||
			   !labels_equal(live->col_labels, pinned->col_labels, d->cols);
	return true;
}

void av_diff_free(struct av_diff *d)
{
	free(d->delta);
	free(d->state);
	memset(d, 0, sizeof(*d));
}
