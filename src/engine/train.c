/* train.c: targets, loss, optimisers and the trainer (see train.h). */
#include "config.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "i18n.h"
#include "matmul.h"
#include "matmul_plain.h"
#include "number.h"
#include "train.h"
#include "util.h"

const char *const av_train_set_names[] = { "qkv", "all", NULL };

/* torch.optim.Adam's defaults */
#define ADAM_BETA1 0.9
#define ADAM_BETA2 0.999
#define ADAM_EPS 1e-8

bool av_parse_lr(const char *text, double *out, char **cause)
{
	double v;
	if (!av_number_parse(text, &v) || !isfinite(v) || v <= 0)
		return av_fail(cause, _("expected a positive finite number, got \"%s\""), text);
	*out = v;
	return true;
}

void av_train_settings_from_sample(struct av_train_settings *set,
				   const struct av_training_config *tc)
{
	set->lr = tc->lr;
	set->optimizer = tc->optimizer;
	set->target = tc->target;
	set->params = AV_TRAIN_QKV;
}

/* --- target and loss ----------------------------------------------------- */

static bool partners(const char *a, const char *b, char *const (*pairs)[2], int n_pairs)
{
	for (int i = 0; i < n_pairs; i++) {
		if ((strcmp(pairs[i][0], a) == 0 && strcmp(pairs[i][1], b) == 0) ||
		    (strcmp(pairs[i][1], a) == 0 && strcmp(pairs[i][0], b) == 0))
			return true;
	}
	return false;
}

static int clamp_key(int j, int m)
{
	if (j < 0)
		return 0;
	return j < m ? j : m - 1;
}

void av_attention_target(double *target, enum av_target kind, bool cross,
			 char *const *q, int n, char *const *k, int m,
			 char *const (*pairs)[2], int n_pairs)
{
	memset(target, 0, (size_t)n * m * sizeof(double));
	for (int i = 0; i < n; i++) {
		int j = clamp_key(i, m);            /* self, and the fallback of pairs */
		if (kind == AV_TARGET_PREVIOUS) {
			j = clamp_key(i - 1, m);
		} else if (kind == AV_TARGET_PAIRS) {
			int best = -1;
			for (int c = 0; c < m; c++) {
				if (!partners(q[i], k[c], pairs, n_pairs))
					continue;
				if (best < 0 || abs(c - i) < abs(best - i))
					best = c;
			}
			if (best >= 0)
				j = best;
		}
		target[(size_t)i * m + j] = 1;
	}
	(void)cross;   /* the clamping to m - 1 covers cross mode (m != n) */
}

double av_attention_loss(const float *weights, const double *target, int H, int n, int m,
			 double *d_weights)
{
	/* loss = torch.mean((weights - target_scores)**2) over every head */
	size_t cells = (size_t)n * m;
	double count = (double)H * (double)cells, sum = 0;
	for (int h = 0; h < H; h++) {
		const float *w = weights + (size_t)h * cells;
		for (size_t c = 0; c < cells; c++) {
			double d = (double)w[c] - target[c];
			sum += d * d;
			if (d_weights)
				d_weights[(size_t)h * cells + c] = 2.0 * d / count;
		}
	}
	return sum / count;
}

/* --- the corpus ---------------------------------------------------------- */

static char *trimmed(const char *text, size_t len)
{
	while (len > 0 && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	return av_strndup(text, len);
}

static void item_target(struct av_trainer *tr, struct av_train_item *it)
{
	const struct av_trace *t = &it->trace;
	bool cross = tr->cfg.mode == AV_MODE_CROSS;
	const struct av_tokens *keys = cross ? &t->source_tokens : &t->tokens;
	free(it->target);
	it->target = av_calloc((size_t)t->n * t->m, sizeof(double));
	av_attention_target(it->target, tr->set.target, cross, t->tokens.text, t->n,
			    keys->text, t->m, (char *const (*)[2])tr->pairs, tr->n_pairs);
}

static bool load_item(struct av_trainer *tr, struct av_train_item *it, const char *entry,
		      const char *session_source, char **cause)
{
	bool cross = tr->cfg.mode == AV_MODE_CROSS;
	const char *sep = strstr(entry, AV_CORPUS_SEPARATOR);
	it->query = trimmed(entry, sep ? (size_t)(sep - entry) : strlen(entry));
	if (cross) {
		if (sep) {
			const char *src = sep + strlen(AV_CORPUS_SEPARATOR);
			it->source = trimmed(src, strlen(src));
		} else if (session_source) {
			it->source = av_strdup(session_source);
		} else {
			return av_fail(cause, _("cross mode needs a source sentence: write the entry "
				       "as \"TARGET ||| SOURCE\" or give a source sentence"));
		}
	}
	if (!av_trace_run(&it->trace, &tr->params, &tr->cfg, it->query, it->source, NULL, 0,
			  cause))
		return false;
	item_target(tr, it);
	return true;
}

/* --- parameters and optimiser state -------------------------------------- */

static bool in_set(enum av_train_set set, int id)
{
	switch (id) {
	case AV_P_W_Q: case AV_P_B_Q: case AV_P_W_K: case AV_P_B_K:
	case AV_P_W_V: case AV_P_B_V:
		return true;
	}
	return set == AV_TRAIN_ALL;
}

static void free_state(struct av_trainer *tr)
{
	av_grads_free(&tr->grad);
	for (int id = 0; id < AV_N_PARAMS; id++) {
		free(tr->adam_m[id]);
		free(tr->adam_v[id]);
		tr->adam_m[id] = tr->adam_v[id] = NULL;
	}
}

/* The parameters changed: every corpus trace is stale, and so are the
 * copies of W^T the traces keep. */
static void params_changed(struct av_trainer *tr)
{
	tr->params_version++;
	av_params_changed(&tr->params);
}

/* Runs corpus sentence i forward to its attention weights (all the loss
 * and the training view read; the value path is left pending) at the
 * current parameters, unless its trace already holds them (the step's own
 * forward, the tracked cell's and the histogram's are then one). */
static struct av_trace *forward_item(struct av_trainer *tr, int i)
{
	struct av_trace *t = &tr->items[i].trace;
	if (tr->forwarded[i] != tr->params_version) {
		av_trace_forward_weights(t, &tr->params, &tr->cfg);
		tr->forwarded[i] = tr->params_version;
	}
	return t;
}

/* The value path (W_v, W_o) never reaches a loss on the attention weights:
 * its gradient is exactly 0 at every step, so its Adam state stays 0 and the
 * update is exactly 0; the step skips it (a third of Adam's work for qkv). */
static bool loss_reaches(int id)
{
	switch (id) {
	case AV_P_W_V: case AV_P_B_V: case AV_P_W_O: case AV_P_B_O:
		return false;
	}
	return true;
}

/* The largest finite |value| of tensor id of params (0 when none), and
 * whether it holds inf or nan: one pass in four lanes, with a select and
 * p - p (0 for a finite p, nan otherwise), which the compiler vectorises
 * (the reset of a D=512 trainer scans 3 MB twice). */
static float scan_tensor(const struct av_params *params, int id, bool *nonfinite)
{
	size_t count;
	const float *p = av_param_tensor(params, id, &count);
	float big[4] = { 0, 0, 0, 0 }, nf[4] = { 0, 0, 0, 0 };
#define SCAN_ONE(e, l) do { \
		float a = fabsf(p[e]); \
		big[l] = a <= FLT_MAX && a > big[l] ? a : big[l]; \
		nf[l] += p[e] - p[e]; \
	} while (0)
	size_t c = 0;
	for (; c + 4 <= count; c += 4)
		for (int l = 0; l < 4; l++)
			SCAN_ONE(c + l, l);
	for (; c < count; c++)
		SCAN_ONE(c, 0);
#undef SCAN_ONE
	if (nonfinite)
		*nonfinite = (nf[0] + nf[1]) + (nf[2] + nf[3]) != 0;
	float most = big[0];
	for (int l = 1; l < 4; l++)
		most = big[l] > most ? big[l] : most;
	return most;
}

/* Whether the backward pass writes tensor id's gradient itself (the
 * trainer's grad.assign: W_q, W_k and their biases). */
static bool is_assigned(int id)
{
	switch (id) {
	case AV_P_W_Q: case AV_P_B_Q: case AV_P_W_K: case AV_P_B_K:
		return true;
	}
	return false;
}

/* Chooses the trained tensors and starts a fresh optimiser on the current
 * parameters. */
static void reset_state(struct av_trainer *tr)
{
	free_state(tr);
	tr->largest_start = 0;
	tr->nonfinite = -1;
	unsigned wanted = 0;
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t count;
		float *p = av_param_tensor(&tr->params, id, &count);
		tr->trained[id] = p && in_set(tr->set.params, id);
		tr->grad_norm[id] = NAN;
		if (!tr->trained[id])
			continue;
		wanted |= 1u << id;
		/* no step moves what the loss does not reach: no moments, and
		 * whether it is finite is known from now on */
		bool bad;
		tr->largest[id] = scan_tensor(&tr->params, id, &bad);
		tr->still_nonfinite[id] = !loss_reaches(id) && bad;
		if (bad && tr->nonfinite < 0)
			tr->nonfinite = id;   /* the first trained tensor holding inf/nan */
		float start = scan_tensor(&tr->start, id, NULL);
		if (start > tr->largest_start)
			tr->largest_start = start;
		if (tr->set.optimizer == AV_OPT_ADAM && loss_reaches(id)) {
			tr->adam_m[id] = av_calloc(count, sizeof(float));
			tr->adam_v[id] = av_calloc(count, sizeof(float));
		}
	}
	av_grads_init(&tr->grad, &tr->params, wanted);
	tr->trained_ids = wanted;
	tr->zeroed_grads = 0;
	for (int id = 0; id < AV_N_PARAMS; id++)
		if (tr->grad.t[id] && loss_reaches(id) && !is_assigned(id))
			tr->zeroed_grads |= 1u << id;
	tr->steps = 0;
	tr->lr_start = tr->set.lr;
	tr->lr_peak = 0;
}

/* av_running_power, inlined into each training step (its call and the
 * saving of registers were a quarter of its cost there) */
static inline double running_power(struct av_running_power *p, double beta, long t)
{
	if (p->t == 0 || t < p->t)
		*p = (struct av_running_power){ .hi = 1, .lo = 0, .t = 0 };
	for (; p->t < t; p->t++) {
		/* (hi + lo) * beta: hi * beta exactly as a sum of two doubles
		 * (the fma gives the product's rounding error), plus lo * beta,
		 * then renormalised so that hi is the rounded sum */
		double prod = p->hi * beta;
		double err = fma(p->hi, beta, -prod) + p->lo * beta;
		double sum = prod + err;
		p->lo = err - (sum - prod);
		p->hi = sum;
	}
	return p->hi;
}

double av_running_power(struct av_running_power *p, double beta, long t)
{
	return running_power(p, beta, t);
}

/* The scalars of one Adam step, as torch.optim.Adam computes them in
 * Python (double) from the step count. */
struct adam_step {
	double step_size;    /* lr / (1 - beta1^t) */
	double bc2_sqrt;     /* sqrt(1 - beta2^t) */
};

/* Adam's constants in float32, as update() rounds them */
struct adam_floats {
	float b1, one_b1, b2, one_b2, bc2, eps, neg_step;
};

#ifdef __SSE2__
/* update()'s ADAM_ONE on values [0, count - count % 4), four at a time: the
 * same operations on each value in the same order (SSE2 rounds each as the
 * scalar code does; no FMA), lane l of s, nf and big taking the values
 * 4i + l, as the scalar loop's lanes do. gcc vectorises none of the scalar
 * loop (the double lanes of the norm), and at D=3 its loop control was half
 * of Adam's instructions. Returns how many values it did. */
static size_t adam_by_fours(float *p, float *m, float *v, const double *g, size_t count,
			    const struct adam_floats *f, double s[4], float nf[4], float big[4])
{
	const __m128 b1 = _mm_set1_ps(f->b1), one_b1 = _mm_set1_ps(f->one_b1);
	const __m128 b2 = _mm_set1_ps(f->b2), one_b2 = _mm_set1_ps(f->one_b2);
	const __m128 bc2 = _mm_set1_ps(f->bc2), eps = _mm_set1_ps(f->eps);
	const __m128 neg_step = _mm_set1_ps(f->neg_step), most = _mm_set1_ps(FLT_MAX);
	const __m128 sign = _mm_set1_ps(-0.0f);
	__m128d s01 = _mm_loadu_pd(s), s23 = _mm_loadu_pd(s + 2);
	__m128 vnf = _mm_loadu_ps(nf), vbig = _mm_loadu_ps(big);
	size_t c = 0;
	for (; c + 4 <= count; c += 4) {
		__m128d g01 = _mm_loadu_pd(g + c), g23 = _mm_loadu_pd(g + c + 2);
		__m128 ge = _mm_movelh_ps(_mm_cvtpd_ps(g01), _mm_cvtpd_ps(g23));
		s01 = _mm_add_pd(s01, _mm_mul_pd(g01, g01));
		s23 = _mm_add_pd(s23, _mm_mul_pd(g23, g23));
		__m128 mc = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m + c), b1), _mm_mul_ps(one_b1, ge));
		__m128 vc = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(v + c), b2),
				       _mm_mul_ps(_mm_mul_ps(one_b2, ge), ge));
		__m128 denom = _mm_add_ps(_mm_div_ps(_mm_sqrt_ps(vc), bc2), eps);
		__m128 pc = _mm_add_ps(_mm_loadu_ps(p + c),
				       _mm_div_ps(_mm_mul_ps(neg_step, mc), denom));
		_mm_storeu_ps(m + c, mc);
		_mm_storeu_ps(v + c, vc);
		_mm_storeu_ps(p + c, pc);
		vnf = _mm_add_ps(vnf, _mm_sub_ps(pc, pc));
		__m128 a = _mm_andnot_ps(sign, pc);
		__m128 larger = _mm_and_ps(_mm_cmple_ps(a, most), _mm_cmpgt_ps(a, vbig));
		vbig = _mm_or_ps(_mm_and_ps(larger, a), _mm_andnot_ps(larger, vbig));
	}
	_mm_storeu_pd(s, s01);
	_mm_storeu_pd(s + 2, s23);
	_mm_storeu_ps(nf, vnf);
	_mm_storeu_ps(big, vbig);
	return c;
}
#endif

/* One optimiser step on tensor id with the gradient in tr->grad, in float32
 * as torch.optim does for a float32 parameter (train.h); returns the
 * gradient's L2 norm (summed in double) and sets *bad when the tensor holds
 * inf or nan afterwards. Why float32: it is what PyTorch keeps for a float32
 * model, and it halves the memory the step moves (g in double, m, v and p
 * in float: 20 bytes per value, where float64 moments and master copies
 * moved 60), which is most of the D=512 epoch. The gradient stays double
 * (backward.h): b_k's ~1e-17 rounds to a float32 ~1e-17, not to float32
 * noise near Adam's eps.
 * Each loop is one pass over the tensor in four interleaved lanes (a fixed
 * order, so the same bits on every run, and the compiler can keep the lanes
 * in vector registers): the norm's sum and the check for inf/nan (p - p is
 * 0 for a finite p, nan otherwise) fused in. -fno-math-errno lets sqrt be
 * an instruction. */
static double update(struct av_trainer *tr, int id, const struct adam_step *k, bool *bad)
{
	size_t count;
	float *p = av_param_tensor(&tr->params, id, &count);
	const double *g = tr->grad.t[id];
	double s[4] = { 0, 0, 0, 0 };
	float nf[4] = { 0, 0, 0, 0 }, big[4] = { 0, 0, 0, 0 };
	size_t c = 0;
	/* the largest finite |p| (av_trainer_diagnose's), as a select */
#define LARGEST(e, l) do { \
		float a = fabsf(p[e]); \
		big[l] = a <= FLT_MAX && a > big[l] ? a : big[l]; \
	} while (0)
	if (tr->set.optimizer == AV_OPT_SGD) {
		/* torch.optim.SGD: param.add_(grad, alpha=-lr) */
		const float alpha = (float)-tr->set.lr;
#define SGD_ONE(e, l) do { \
			float ge = (float)g[e]; \
			s[l] += g[e] * g[e]; \
			p[e] = p[e] + alpha * ge; \
			nf[l] += p[e] - p[e]; \
			LARGEST(e, l); \
		} while (0)
		for (; c + 4 <= count; c += 4)
			for (int l = 0; l < 4; l++)
				SGD_ONE(c + l, l);
		for (; c < count; c++)
			SGD_ONE(c, 0);
#undef SGD_ONE
	} else {
		/* torch.optim.Adam (_single_tensor_adam, torch 1.13), float32:
		 *   exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
		 *   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
		 *   denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
		 *   param.addcdiv_(exp_avg, denom, value=-step_size)
		 * with the Python scalars rounded to float32 */
		float *m = tr->adam_m[id], *v = tr->adam_v[id];
		const struct adam_floats f = {
			.b1 = (float)ADAM_BETA1, .one_b1 = (float)(1.0 - ADAM_BETA1),
			.b2 = (float)ADAM_BETA2, .one_b2 = (float)(1.0 - ADAM_BETA2),
			.bc2 = (float)k->bc2_sqrt, .eps = (float)ADAM_EPS,
			.neg_step = (float)-k->step_size,
		};
#define ADAM_ONE(e, l) do { \
			float ge = (float)g[e]; \
			s[l] += g[e] * g[e]; \
			m[e] = m[e] * f.b1 + f.one_b1 * ge; \
			v[e] = v[e] * f.b2 + f.one_b2 * ge * ge; \
			float denom = sqrtf(v[e]) / f.bc2 + f.eps; \
			p[e] = p[e] + f.neg_step * m[e] / denom; \
			nf[l] += p[e] - p[e]; \
			LARGEST(e, l); \
		} while (0)
#ifdef __SSE2__
		c = adam_by_fours(p, m, v, g, count, &f, s, nf, big);
#else
		for (; c + 4 <= count; c += 4)
			for (int l = 0; l < 4; l++)
				ADAM_ONE(c + l, l);
#endif
		for (; c < count; c++)
			ADAM_ONE(c, 0);
#undef ADAM_ONE
	}
#undef LARGEST
	*bad = (nf[0] + nf[1]) + (nf[2] + nf[3]) != 0;
	float most = big[0];
	for (int l = 1; l < 4; l++)
		most = big[l] > most ? big[l] : most;
	tr->largest[id] = most;
	return sqrt((s[0] + s[1]) + (s[2] + s[3]));
}

/* --- the tracked pair ----------------------------------------------------- */

/* Row `word` of (x W^T + b) for x the token row plus pos (D floats, or
 * NULL: no position). */
static void project_word(const struct av_trainer *tr, int word, const float *pos,
			 const float *w, const float *b, float *x, float *out)
{
	const struct av_params *p = &tr->params;
	int D = p->d_model;
	memcpy(x, p->token_embedding + (size_t)word * D, (size_t)D * sizeof(float));
	if (pos)
		for (int c = 0; c < D; c++)
			x[c] += pos[c];
	if (D == 3)   /* china-panda's: the loops unrolled */
		av_plain_row_nt(out, x, w, b, 3, 3);
	else if (av_matmul_is_plain(1, D, D))
		av_plain_row_nt(out, x, w, b, D, D);   /* av_linear's bits, inlined */
	else
		av_linear(out, x, w, b, 1, D, D);
}

/* Projects the tracked pair's words (no positions) into the trainer's
 * scratch, q then k (the scratch is the trainer's working memory, written
 * even through a const trainer); returns q, k follows at q + D. */
static const float *project_track_pair(const struct av_trainer *tr)
{
	const struct av_params *p = &tr->params;
	int D = p->d_model;
	float *x = tr->scratch, *q = x + D, *k = x + 2 * D;
	project_word(tr, tr->track[0], NULL, p->w_q, p->b_q, x, q);
	project_word(tr, tr->track[1], NULL, p->w_k, p->b_k, x, k);
	return q;
}

/* Head h's score of the pair projected by project_track_pair: one cell of
 * the vocabulary scores. */
static double head_track_score(const struct av_trainer *tr, const float *q, int h)
{
	int D = tr->params.d_model, dh = av_config_head_dim(&tr->cfg);
	float score;
	if (av_matmul_is_plain(1, 1, dh))   /* av_head_scores's bits, inlined */
		av_plain_row_nt(&score, q + (size_t)h * dh, q + D + (size_t)h * dh, NULL, 1, dh);
	else
		av_head_scores(&score, q, q + D, 1, 1, D, h, dh);
	return (double)(float)(score / av_config_divisor(&tr->cfg));
}

double av_trainer_track_score(const struct av_trainer *tr, int h)
{
	if (tr->track[0] < 0 || h < 0 || h >= tr->cfg.heads)
		return NAN;
	return head_track_score(tr, project_track_pair(tr), h);
}

/* The tracked pair in corpus trace t: the first query position of its
 * first word that has a key position of its second word (a visible one,
 * when visible) in *query, and of those keys the nearest in *key; false
 * when t has none. */
static bool pair_in(const struct av_trainer *tr, const struct av_trace *t, bool visible,
		    int *query, int *key)
{
	const int *key_ids = tr->cfg.mode == AV_MODE_CROSS ? t->source_ids : t->ids;
	for (int i = 0; i < t->n; i++) {
		if (t->ids[i] != tr->track[0])
			continue;
		int best = -1;
		for (int j = 0; j < t->m; j++) {
			if (key_ids[j] != tr->track[1] || (visible && !t->mask[(size_t)i * t->m + j]))
				continue;
			if (best < 0 || abs(j - i) < abs(best - i))
				best = j;
		}
		if (best >= 0) {
			*query = i;
			*key = best;
			return true;
		}
	}
	return false;
}

/* The tracked pair's cell in the corpus (see track_item in train.h). */
static void find_track_cell(struct av_trainer *tr)
{
	tr->track_item = tr->track_pos[0] = tr->track_pos[1] = -1;
	if (tr->track[0] < 0)
		return;
	for (int it = 0; it < tr->n_items; it++)
		if (pair_in(tr, &tr->items[it].trace, true, &tr->track_pos[0], &tr->track_pos[1])) {
			tr->track_item = it;
			return;
		}
}

bool av_trainer_track_hidden(const struct av_trainer *tr)
{
	if (tr->track[0] < 0 || tr->track_item >= 0)
		return false;
	int query, key;
	for (int it = 0; it < tr->n_items; it++)
		if (pair_in(tr, &tr->items[it].trace, false, &query, &key))
			return true;
	return false;
}

bool av_trainer_track_cell(struct av_trainer *tr, int h, double *scaled, double *weight)
{
	*scaled = *weight = NAN;
	if (tr->track_item < 0 || h < 0 || h >= tr->cfg.heads)
		return false;
	const struct av_trace *t = forward_item(tr, tr->track_item);
	size_t cell = ((size_t)h * t->n + tr->track_pos[0]) * t->m + tr->track_pos[1];
	*scaled = t->scaled[cell];
	*weight = t->weights[cell];
	return true;
}

/* Makes row tr->epoch of the tracked histories the current values. */
static void record_track(struct av_trainer *tr)
{
	int H = tr->cfg.heads;
	if (tr->epoch + 1 > tr->track_cap) {
		int cap = tr->track_cap ? tr->track_cap * 2 : 256;
		while (cap < tr->epoch + 1)
			cap *= 2;
		tr->track_history = av_realloc(tr->track_history, (size_t)cap * H, sizeof(double));
		tr->track_cell_history = av_realloc(tr->track_cell_history, (size_t)cap * H * 2,
						    sizeof(double));
		tr->track_cap = cap;
	}
	/* the pair projected once for every head */
	const float *q = tr->track[0] >= 0 ? project_track_pair(tr) : NULL;
	for (int h = 0; h < H; h++) {
		size_t row = (size_t)tr->epoch * H + h;
		tr->track_history[row] = q ? head_track_score(tr, q, h) : NAN;
		av_trainer_track_cell(tr, h, &tr->track_cell_history[2 * row],
				      &tr->track_cell_history[2 * row + 1]);
	}
}

/* --- the trainer ---------------------------------------------------------- */

static bool check_settings(const struct av_trainer *tr, const struct av_train_settings *set,
			   char **cause)
{
	if (!(isfinite(set->lr) && set->lr > 0))
		return av_fail(cause, _("the learning rate must be a positive number, not %g"), set->lr);
	if (set->target == AV_TARGET_PAIRS && tr->n_pairs == 0)
		return av_fail(cause, _("target \"pairs\" needs word pairs, and the sample has no "
			       "\"training\".\"pairs\""));
	return true;
}

static void clear_progress(struct av_trainer *tr)
{
	tr->epoch = 0;
	tr->next_item = 0;
	tr->epoch_loss = 0;
	tr->last_loss = NAN;
	tr->last_item = -1;
	tr->n_target_changes = 0;
	record_track(tr);
}

/* The epochs s's weights had had when they are a trained file's, as
 * loaded: what a run from them counts on from ("trained 200+3 ep", and the
 * record's "epochs_before"). 0 for drawn weights, and for a file whose run
 * stopped inside an epoch (its "steps"): the count would be a fraction. */
static int epochs_before(const struct av_session *s)
{
	struct av_training_record loaded;
	if (!av_session_loaded_training(s, &loaded) || loaded.steps != 0)
		return 0;
	return av_epochs_sum(loaded.epochs_before, loaded.epochs);
}

struct av_trainer *av_trainer_new(const struct av_session *s,
				  const struct av_train_settings *set, char **cause)
{
	const struct av_sample *sample = &s->sample;
	const struct av_training_config *tc = &sample->training;
	struct av_trainer *tr = av_calloc(1, sizeof(*tr));
	tr->cfg = s->cfg;
	tr->set = *set;
	tr->track[0] = tr->track[1] = -1;
	tr->n_pairs = tc->n_pairs;
	tr->pairs = av_calloc((size_t)tc->n_pairs + 1, sizeof(*tr->pairs));
	for (int i = 0; i < tc->n_pairs; i++) {
		tr->pairs[i][0] = av_strdup(tc->pairs[i][0]);
		tr->pairs[i][1] = av_strdup(tc->pairs[i][1]);
	}
	tr->source = s->source ? av_strdup(s->source) : NULL;
	av_params_copy(&tr->params, &s->params);
	if (!check_settings(tr, set, cause))
		goto fail;
	if (sample->n_sentences == 0) {
		av_fail(cause, _("there are no training sentences (the sample's \"sentences\")"));
		goto fail;
	}
	tr->items = av_calloc((size_t)sample->n_sentences, sizeof(*tr->items));
	tr->forwarded = av_calloc((size_t)sample->n_sentences, sizeof(*tr->forwarded));
	tr->params_version = 1;   /* the traces av_trace_run made hold these */
	for (int i = 0; i < sample->n_sentences; i++) {
		tr->n_items++;
		if (!load_item(tr, &tr->items[i], sample->sentences[i], s->source, cause)) {
			av_cause_prefix(cause, _("training sentence %d (\"sentences\", item %d)"),
					i + 1, i + 1);
			goto fail;
		}
	}
	for (int i = 0; i < tr->n_items; i++)
		tr->forwarded[i] = tr->params_version;
	tr->scratch = av_malloc((size_t)tr->params.d_model * 4 * sizeof(float));
	av_params_copy(&tr->start, &tr->params);
	reset_state(tr);

	const char *a = tc->track[0], *b = tc->track[1];
	if (!a && tc->n_pairs > 0) {
		a = tc->pairs[0][0];
		b = tc->pairs[0][1];
	}
	if (a) {
		tr->track[0] = av_params_find(&tr->params, a);
		tr->track[1] = av_params_find(&tr->params, b);
		if (tr->track[0] < 0 || tr->track[1] < 0)
			tr->track[0] = tr->track[1] = -1;
	}
	find_track_cell(tr);
	clear_progress(tr);
	tr->epochs_before = epochs_before(s);
	return tr;
fail:
	av_trainer_free(tr);
	return NULL;
}

void av_trainer_free(struct av_trainer *tr)
{
	if (!tr)
		return;
	for (int i = 0; i < tr->n_items; i++) {
		struct av_train_item *it = &tr->items[i];
		free(it->query);
		free(it->source);
		free(it->target);
		av_trace_free(&it->trace);
	}
	free(tr->items);
	free(tr->forwarded);
	free(tr->scratch);
	for (int i = 0; i < tr->n_pairs; i++) {
		free(tr->pairs[i][0]);
		free(tr->pairs[i][1]);
	}
	free(tr->pairs);
	free(tr->source);
	free_state(tr);
	av_params_free(&tr->start);
	av_params_free(&tr->params);
	free(tr->loss);
	free(tr->track_history);
	free(tr->track_cell_history);
	free(tr->d_weights);
	free(tr);
}

bool av_trainer_step(struct av_trainer *tr)
{
	struct av_train_item *it = &tr->items[tr->next_item];
	struct av_trace *t = forward_item(tr, tr->next_item);
	size_t cells = (size_t)t->heads * t->n * t->m;
	if (tr->d_weights_count < cells) {
		free(tr->d_weights);
		tr->d_weights = av_malloc(cells * sizeof(double));
		tr->d_weights_count = cells;
	}
	double loss = av_attention_loss(t->weights, it->target, t->heads, t->n, t->m,
					tr->d_weights);
	/* only the gradients the loss reaches are computed; the others stay
	 * the zeros they were made as; W_q's and W_k's (and their biases')
	 * are written by the backward pass (grad.assign), the embeddings' are
	 * sums over the tokens, zeroed here */
	tr->grad.assign = 1u << AV_P_W_Q | 1u << AV_P_W_K;
	for (unsigned left = tr->zeroed_grads; left; left &= left - 1) {
		int id = __builtin_ctz(left);
		memset(tr->grad.t[id], 0, tr->grad.count[id] * sizeof(double));
	}
	av_trace_backward(t, &tr->params, NULL, tr->d_weights, &tr->grad);

	tr->steps++;
	tr->last_item = tr->next_item;
	if (tr->set.lr > tr->lr_peak)
		tr->lr_peak = tr->set.lr;
	/* torch.optim.Adam's bias corrections, from the step count in double
	 * (1 - beta ** step; av_running_power gives pow's bits) */
	struct adam_step k = {
		.step_size = tr->set.lr / (1.0 - running_power(&tr->beta1_t, ADAM_BETA1,
							       tr->steps)),
		.bc2_sqrt = sqrt(1.0 - running_power(&tr->beta2_t, ADAM_BETA2, tr->steps)),
	};
	tr->nonfinite = -1;
	for (unsigned left = tr->trained_ids; left; left &= left - 1) {
		int id = __builtin_ctz(left);   /* in the order of ids */
		bool bad = tr->still_nonfinite[id];
		if (loss_reaches(id))
			tr->grad_norm[id] = update(tr, id, &k, &bad);
		else
			tr->grad_norm[id] = 0;
		if (bad && tr->nonfinite < 0)
			tr->nonfinite = id;
	}
	params_changed(tr);
	tr->last_loss = loss;
	tr->epoch_loss += loss;
	if (++tr->next_item < tr->n_items)
		return false;

	if (tr->epoch == tr->loss_cap) {
		tr->loss_cap = tr->loss_cap ? tr->loss_cap * 2 : 256;
		tr->loss = av_realloc(tr->loss, (size_t)tr->loss_cap, sizeof(double));
	}
	tr->loss[tr->epoch++] = tr->epoch_loss;
	tr->epoch_loss = 0;
	tr->next_item = 0;
	record_track(tr);
	return true;
}

int av_epochs_sum(int before, int epochs)
{
	return epochs <= INT_MAX - before ? before + epochs : INT_MAX;
}

bool av_trainer_diverged(const struct av_trainer *tr)
{
	return tr->nonfinite >= 0 || (tr->steps > 0 && !isfinite(tr->last_loss));
}

int av_trainer_max_epochs(const struct av_trainer *tr)
{
	size_t most = AV_TRAIN_HISTORY_BYTES / AV_TRAIN_EPOCH_HISTORY_BYTES(tr->cfg.heads);
	return most > INT_MAX ? INT_MAX : (int)most;
}

double av_trainer_epoch(struct av_trainer *tr)
{
	while (!av_trainer_step(tr))
		;
	return tr->loss[tr->epoch - 1];
}

void av_trainer_reset(struct av_trainer *tr)
{
	av_params_free(&tr->params);
	av_params_copy(&tr->params, &tr->start);
	params_changed(tr);
	reset_state(tr);
	clear_progress(tr);
}

bool av_trainer_set_lr(struct av_trainer *tr, double lr, char **cause)
{
	struct av_train_settings set = tr->set;
	set.lr = lr;
	if (!check_settings(tr, &set, cause))
		return false;
	tr->set.lr = lr;
	return true;
}

void av_trainer_set_optimizer(struct av_trainer *tr, enum av_optimizer optimizer)
{
	tr->set.optimizer = optimizer;
	reset_state(tr);
}

/* Notes a change of target from was to the current one, made at the run's
 * position now (see av_trainer_set_target). */
static void note_target_change(struct av_trainer *tr, enum av_target was)
{
	int n = tr->n_target_changes;
	struct av_target_change *last = n ? &tr->target_changes[n - 1] : NULL;
	if (last && last->epoch == tr->epoch && last->item == tr->next_item) {
		/* no step since: one change, from the target the steps before
		 * trained toward (w pressed twice to reach pairs), or none */
		if (last->was == tr->set.target)
			tr->n_target_changes--;
		else
			last->loss = av_trainer_corpus_loss(tr);
		return;
	}
	if (n == AV_TRAIN_TARGET_CHANGES) {
		memmove(tr->target_changes, tr->target_changes + 1,
			(size_t)(n - 1) * sizeof(tr->target_changes[0]));
		n--;
	}
	tr->target_changes[n] = (struct av_target_change){
		.epoch = tr->epoch, .item = tr->next_item, .was = was,
		.loss = av_trainer_corpus_loss(tr),
	};
	tr->n_target_changes = n + 1;
}

bool av_trainer_set_target(struct av_trainer *tr, enum av_target target, char **cause)
{
	struct av_train_settings set = tr->set;
	set.target = target;
	if (!check_settings(tr, &set, cause))
		return false;
	enum av_target was = tr->set.target;
	tr->set.target = target;
	for (int i = 0; i < tr->n_items; i++)
		item_target(tr, &tr->items[i]);
	if (target != was && (tr->epoch > 0 || tr->next_item > 0))
		note_target_change(tr, was);
	return true;
}

double av_trainer_corpus_loss(struct av_trainer *tr)
{
	double loss = 0;
	for (int i = 0; i < tr->n_items; i++) {
		const struct av_trace *t = forward_item(tr, i);
		loss += av_attention_loss(t->weights, tr->items[i].target, t->heads, t->n, t->m,
					  NULL);
	}
	return loss;
}

const struct av_target_change *av_trainer_target_change(const struct av_trainer *tr)
{
	return tr->n_target_changes ? &tr->target_changes[tr->n_target_changes - 1] : NULL;
}

bool av_trainer_corpus_learned(const struct av_trainer *tr)
{
	const struct av_target_change *ch = av_trainer_target_change(tr);
	if (ch)   /* an epoch since the change, against the loss at the change */
		return tr->epoch > ch->epoch && tr->loss[tr->epoch - 1] < 1e-3 * ch->loss;
	return tr->epoch > 0 && tr->loss[tr->epoch - 1] < 1e-3 * tr->loss[0];
}

void av_trainer_set_params(struct av_trainer *tr, enum av_train_set params)
{
	tr->set.params = params;
	reset_state(tr);
}

void av_trainer_set_init(struct av_trainer *tr, enum av_init init)
{
	static const int linear[] = { AV_P_W_Q, AV_P_B_Q, AV_P_W_K, AV_P_B_K,
				      AV_P_W_V, AV_P_B_V, AV_P_W_O, AV_P_B_O };
	struct av_params fresh;
	struct av_config cfg = tr->cfg;
	cfg.init = init;
	av_params_copy(&fresh, &tr->start);
	av_params_reinit_linear(&fresh, &cfg);
	for (size_t i = 0; i < sizeof(linear) / sizeof(linear[0]); i++) {
		int id = linear[i];
		size_t count;
		float *drawn = av_param_tensor(&fresh, id, &count);
		if (drawn && !in_set(tr->set.params, id))
			memcpy(drawn, av_param_tensor(&tr->start, id, NULL), count * sizeof(float));
	}
	av_params_changed(&fresh);
	av_params_free(&tr->start);
	tr->start = fresh;
	tr->cfg.init = init;
	tr->epochs_before = 0;   /* weights drawn anew: the file's epochs are gone */
	av_trainer_reset(tr);
}

bool av_trainer_set_track(struct av_trainer *tr, int a, int b, char **cause)
{
	int V = tr->params.vocab_size;
	bool none = a < 0 && b < 0;
	if (!none && (a < 0 || b < 0 || a >= V || b >= V))
		return av_fail(cause, _("no such vocabulary pair (%d, %d); the vocabulary has %d words"),
			       a, b, V);
	tr->track[0] = none ? -1 : a;
	tr->track[1] = none ? -1 : b;
	find_track_cell(tr);
	for (size_t e = 0; e < (size_t)tr->epoch * tr->cfg.heads; e++) {
		tr->track_history[e] = NAN;
		tr->track_cell_history[2 * e] = tr->track_cell_history[2 * e + 1] = NAN;
	}
	record_track(tr);
	return true;
}

void av_trainer_vocab_scores(const struct av_trainer *tr, bool at_position_0, float *out)
{
	const struct av_params *p = &tr->params;
	int V = p->vocab_size, D = p->d_model, H = tr->cfg.heads, dh = D / H;
	double divisor = av_config_divisor(&tr->cfg);
	float *x = av_malloc((size_t)D * 2 * sizeof(float)), *pos = NULL;
	float *q = av_malloc((size_t)V * D * sizeof(float));
	float *k = av_malloc((size_t)V * D * sizeof(float));
	if (at_position_0) {
		pos = x + D;
		av_position_row(p, tr->cfg.positional, 0, pos);
	}
	for (int a = 0; a < V; a++) {
		project_word(tr, a, pos, p->w_q, p->b_q, x, q + (size_t)a * D);
		project_word(tr, a, pos, p->w_k, p->b_k, x, k + (size_t)a * D);
	}
	/* the scaled stage of a sentence, computed the same way */
	for (int h = 0; h < H; h++) {
		float *scores = out + (size_t)h * V * V;
		av_head_scores(scores, q, k, V, V, D, h, dh);
		for (size_t c = 0; c < (size_t)V * V; c++)
			scores[c] = (float)(scores[c] / divisor);
	}
	free(x);
	free(q);
	free(k);
}

float *av_trainer_scores(struct av_trainer *tr, int *count)
{
	size_t total = 0;
	for (int i = 0; i < tr->n_items; i++) {
		struct av_trace *t = &tr->items[i].trace;
		total += (size_t)t->heads * t->n * t->m;
	}
	float *out = av_malloc((total ? total : 1) * sizeof(float));
	size_t k = 0;
	for (int i = 0; i < tr->n_items; i++) {
		const struct av_trace *t = forward_item(tr, i);
		size_t cells = (size_t)t->n * t->m;
		for (int h = 0; h < t->heads; h++)
			for (size_t c = 0; c < cells; c++)
				if (t->mask[c])
					out[k++] = t->scaled[(size_t)h * cells + c];
	}
	*count = (int)k;
	return out;
}

/* The bin of a value that is not finite: -inf the first, +inf the last,
 * NaN none (-1). Converting one to int would be undefined behaviour. */
static int nonfinite_bin(float v, int bins)
{
	if (isnan(v))
		return -1;
	return v < 0 ? 0 : bins - 1;
}

void av_histogram(const float *values, int n, int bins, int *counts, double *lo, double *hi)
{
	memset(counts, 0, (size_t)bins * sizeof(int));
	double min = INFINITY, max = -INFINITY;
	for (int i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			continue;
		if (values[i] < min)
			min = values[i];
		if (values[i] > max)
			max = values[i];
	}
	if (min > max)   /* no finite value */
		min = max = 0;
	*lo = min;
	*hi = max;
	for (int i = 0; i < n; i++) {
		int b = bins / 2;
		if (!isfinite(values[i])) {
			b = nonfinite_bin(values[i], bins);
		} else if (max > min) {
			/* in [0, 1] for finite values within [min, max] */
			double t = (values[i] - min) / (max - min);
			b = t >= 1 ? bins - 1 : (int)(t * bins);
			if (b < 0)
				b = 0;
		}
		if (b >= 0)
			counts[b]++;
	}
}

int av_trainer_score_histogram(struct av_trainer *tr, int bins, int *counts,
			       double *lo, double *hi)
{
	int n;
	float *v = av_trainer_scores(tr, &n);
	av_histogram(v, n, bins, counts, lo, hi);
	free(v);
	return n;
}

enum av_grad_health av_trainer_grad_health(const struct av_trainer *tr, int id)
{
	if (id < 0 || id >= AV_N_PARAMS || !tr->trained[id])
		return AV_GRAD_NOT_TRAINED;
	if (!loss_reaches(id) || id == AV_P_B_K)
		return AV_GRAD_UNUSED;
	double norm = tr->grad_norm[id];
	if (tr->steps == 0)
		return AV_GRAD_OK;   /* no step yet */
	if (!isfinite(norm) || norm > AV_GRAD_EXPLODING_ABOVE)
		return AV_GRAD_EXPLODING;
	if (norm < AV_GRAD_VANISHING_BELOW)
		return AV_GRAD_VANISHING;
	return AV_GRAD_OK;
}

/* The largest finite |value| of the trained tensors now (kept by the
 * steps: a scan of 3 MB at D=512 on every refresh of the screen was a
 * third of the running training view's time). */
static double largest_param(const struct av_trainer *tr)
{
	float big = 0;
	for (int id = 0; id < AV_N_PARAMS; id++)
		if (tr->trained[id] && tr->largest[id] > big)
			big = tr->largest[id];
	return big;
}

/* The corpus's largest |scaled score| and its share of one-hot rows. */
static void corpus_softmax_stats(const struct av_trainer *tr, double *max_score, double *one_hot)
{
	long rows = 0, peaked = 0;
	*max_score = 0;
	for (int i = 0; i < tr->n_items; i++) {
		const struct av_trace *t = &tr->items[i].trace;
		size_t cells = (size_t)t->n * t->m;
		for (int h = 0; h < t->heads; h++)
			for (int r = 0; r < t->n; r++) {
				if (t->row_hidden[r])
					continue;
				double top = 0;
				for (int j = 0; j < t->m; j++) {
					size_t c = (size_t)h * cells + (size_t)r * t->m + j;
					if (!t->mask[(size_t)r * t->m + j])
						continue;
					double s = fabs(t->scaled[c]);
					if (isfinite(s) && s > *max_score)
						*max_score = s;
					if (t->weights[c] > top)
						top = t->weights[c];
				}
				rows++;
				peaked += top > AV_ONE_HOT_ABOVE;
			}
	}
	*one_hot = rows ? (double)peaked / rows : 0;
}

/* Why things went wrong: the lr, the temperature or the weights. */
static enum av_train_cause find_cause(const struct av_trainer *tr, bool too_flat, double max_param)
{
	bool adam = tr->set.optimizer == AV_OPT_ADAM;
	double T = tr->cfg.temperature, lr = tr->lr_peak > 0 ? tr->lr_peak : tr->set.lr;
	if (too_flat) {
		if (T > AV_TEMPERATURE_FLAT)
			return AV_CAUSE_TEMPERATURE;
		if (adam ? tr->set.lr < 1e-4 : tr->set.lr < 1e-2)
			return AV_CAUSE_LR;
		return AV_CAUSE_WEIGHTS;
	}
	if (tr->lr_start > 0 && lr >= 4 * tr->lr_start)
		return AV_CAUSE_LR;
	if (T < AV_TEMPERATURE_SHARP)
		return AV_CAUSE_TEMPERATURE;
	if (adam ? lr > 0.5 : lr > 10)
		return AV_CAUSE_LR;
	if (max_param > AV_LARGE_WEIGHT)
		return AV_CAUSE_WEIGHTS;
	return AV_CAUSE_UNKNOWN;
}

void av_trainer_diagnose(const struct av_trainer *tr, struct av_train_diagnosis *d)
{
	memset(d, 0, sizeof(*d));
	d->param = -1;
	/* the weights now, or where training started when they were large */
	double now = largest_param(tr), start = tr->largest_start;
	d->max_param = now > start ? now : start;
	corpus_softmax_stats(tr, &d->max_score, &d->one_hot);
	double last_epoch = tr->epoch > 0 ? tr->loss[tr->epoch - 1] : 0;
	if (tr->nonfinite >= 0 || (tr->steps > 0 && !isfinite(tr->last_loss)) ||
	    !isfinite(last_epoch)) {
		d->trouble = AV_TROUBLE_NONFINITE;
		d->param = tr->nonfinite;
		d->cause = find_cause(tr, false, d->max_param);
		return;
	}
	if (tr->steps == 0)
		return;
	bool vanishing = false, exploding = false;
	for (int id = 0; id < AV_N_PARAMS; id++) {
		enum av_grad_health g = av_trainer_grad_health(tr, id);
		vanishing |= g == AV_GRAD_VANISHING;
		exploding |= g == AV_GRAD_EXPLODING;
	}
	/* the step's sentence already matches its target, or the corpus does */
	bool learned = tr->last_loss < AV_LEARNED_BELOW || av_trainer_corpus_learned(tr);
	/* huge scores make one-hot rows whose gradients are tiny, if not yet
	 * below the vanishing line */
	bool saturated = !learned && d->one_hot >= 0.5 &&
			 (vanishing || d->max_score > AV_SATURATED_SCORE);
	if (exploding) {
		d->trouble = AV_TROUBLE_EXPLODING;
		d->cause = find_cause(tr, false, d->max_param);
	} else if (saturated && !vanishing) {
		d->trouble = AV_TROUBLE_SATURATED;
		d->cause = find_cause(tr, false, d->max_param);
	} else if (vanishing) {
		if (learned) {
			d->trouble = AV_TROUBLE_LEARNED;
		} else if (d->one_hot >= 0.5) {
			d->trouble = AV_TROUBLE_SATURATED;
			d->cause = find_cause(tr, false, d->max_param);
		} else {
			d->trouble = AV_TROUBLE_VANISHING;
			d->cause = find_cause(tr, true, d->max_param);
		}
	}
}

bool av_trainer_apply(const struct av_trainer *tr, struct av_session *s, char **cause)
{
	av_params_free(&s->params);
	av_params_copy(&s->params, &tr->params);
	return av_session_run(s, cause);
}

void av_trainer_record(const struct av_trainer *tr, struct av_training_record *r)
{
	*r = av_training_record_of(tr->epoch, tr->next_item, tr->set.lr, (int)tr->set.optimizer,
				   (int)tr->set.target);
	r->loss = tr->loss;
	r->epochs_before = tr->epochs_before;
}

/* --- sleeping between visits ------------------------------------------------ */

/* The matrices worth freeing: D x D each (the rest is small). */
static const int sleeping_ids[] = { AV_P_W_Q, AV_P_W_K, AV_P_W_V, AV_P_W_O };
#define N_SLEEPING ((int)(sizeof(sleeping_ids) / sizeof(sleeping_ids[0])))

static float **matrix_slot(struct av_params *p, int id)
{
	switch (id) {
	case AV_P_W_Q: return &p->w_q;
	case AV_P_W_K: return &p->w_k;
	case AV_P_W_V: return &p->w_v;
	case AV_P_W_O: return &p->w_o;
	}
	return NULL;
}

/* FNV-1a 64 over the floats' 32-bit words in 16 interleaved lanes (the
 * multiplies of a lane depend on each other; 16 keep the multiplier busy:
 * 0.15 ms for a D=512 matrix, which the stepper's header pays per redraw
 * while the trainer sleeps), the lanes then folded in order. */
#define HASH_LANES 16
static uint64_t floats_hash(const float *x, size_t count)
{
	const uint64_t prime = 0x100000001b3ULL;
	uint64_t h[HASH_LANES];
	for (int l = 0; l < HASH_LANES; l++)
		h[l] = 0xcbf29ce484222325ULL + (uint64_t)l;
	size_t c = 0;
	for (; c + HASH_LANES <= count; c += HASH_LANES)
		for (int l = 0; l < HASH_LANES; l++) {
			uint32_t w;
			memcpy(&w, x + c + l, sizeof(w));
			h[l] = (h[l] ^ w) * prime;
		}
	for (; c < count; c++) {
		uint32_t w;
		memcpy(&w, x + c, sizeof(w));
		h[0] = (h[0] ^ w) * prime;
	}
	uint64_t all = h[0];
	for (int l = 1; l < HASH_LANES; l++)
		all = (all ^ h[l]) * prime;
	return (all ^ count) * prime;
}

/* The parameters s starts from: the loaded file's, or drawn again from
 * the seed (as av_session_reinit draws them). */
static void session_start_params(const struct av_session *s, struct av_params *out)
{
	if (s->from_weights)
		av_params_copy(out, &s->initial);
	else
		av_params_init(out, &s->cfg, (const char *const *)s->params.vocab, s->base_vocab);
}

/* Frees tensor id of p, remembering where it comes back from. */
static void put_to_sleep(struct av_params *p, int id, struct av_sleeping_tensor *st, int from)
{
	float **slot = matrix_slot(p, id);
	st->from = from;
	st->hash = floats_hash(*slot, st->count);
	free(*slot);
	*slot = NULL;
}

bool av_trainer_sleep(struct av_trainer *tr, const struct av_session *s)
{
	if (tr->asleep)
		return false;
	size_t moments = 0;
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t count = 0;
		if (tr->adam_m[id])
			av_param_tensor(&tr->params, id, &count);
		moments += 2 * count * sizeof(float);
	}
	/* the moments are worth their memory only when small; a fresh
	 * optimiser is what o or a change of the trained tensors gives too */
	tr->restart_on_wake = moments >= AV_TRAIN_KEEP_MOMENTS_BELOW;
	bool restart = tr->restart_on_wake && tr->steps > 0;
	if (tr->restart_on_wake) {
		free_state(tr);   /* the gradients too: the step's moments need them */
		tr->steps = 0;
	}   /* else the last gradients (as small) stay for the matrices panel */
	free(tr->d_weights);
	tr->d_weights = NULL;
	tr->d_weights_count = 0;
	for (int i = 0; i < tr->n_items; i++) {
		av_trace_free(&tr->items[i].trace);
		memset(&tr->items[i].trace, 0, sizeof(tr->items[i].trace));
		tr->forwarded[i] = 0;
	}

	struct av_params fresh = { 0 };
	bool have_fresh = false;
	for (int k = 0; k < N_SLEEPING; k++) {
		int id = sleeping_ids[k];
		size_t count, sc;
		const float *now = av_param_tensor(&tr->params, id, &count);
		const float *start = av_param_tensor(&tr->start, id, NULL);
		const float *in_s = av_param_tensor(&s->params, id, &sc);
		struct av_sleeping_tensor *sp = &tr->sleep_params[id], *ss = &tr->sleep_start[id];
		sp->from = ss->from = AV_SLEEP_KEPT;
		sp->count = ss->count = count;
		if (!now)
			continue;
		/* the start first: it may be the current one, before that goes */
		if (av_tensor_same(start, now, count)) {
			put_to_sleep(&tr->start, id, ss, AV_SLEEP_PARAMS);
		} else {
			if (!have_fresh) {
				session_start_params(s, &fresh);
				have_fresh = true;
			}
			size_t fc;
			const float *drawn = av_param_tensor(&fresh, id, &fc);
			if (fc == count && av_tensor_same(start, drawn, count))
				put_to_sleep(&tr->start, id, ss, AV_SLEEP_FRESH);
		}
		if (sc == count && av_tensor_same(now, in_s, count))
			put_to_sleep(&tr->params, id, sp, AV_SLEEP_SESSION);
	}
	if (have_fresh)
		av_params_free(&fresh);
	tr->asleep = true;
	return restart;
}

/* Brings tensor id of p back from src (count floats), checking its hash. */
static bool wake_tensor(struct av_params *p, int id, const struct av_sleeping_tensor *st,
			const struct av_params *src)
{
	size_t count;
	const float *from = av_param_tensor(src, id, &count);
	if (!from || count != st->count || floats_hash(from, count) != st->hash)
		return false;
	float **slot = matrix_slot(p, id);
	*slot = av_malloc(count * sizeof(float));
	memcpy(*slot, from, count * sizeof(float));
	av_params_changed(p);
	return true;
}

bool av_trainer_wake(struct av_trainer *tr, const struct av_session *s, char **cause)
{
	if (!tr->asleep)
		return true;
	struct av_params fresh = { 0 };
	bool have_fresh = false, ok = true;
	for (int k = 0; k < N_SLEEPING && ok; k++) {
		int id = sleeping_ids[k];
		const struct av_sleeping_tensor *sp = &tr->sleep_params[id], *ss = &tr->sleep_start[id];
		if (sp->from == AV_SLEEP_SESSION)
			ok = wake_tensor(&tr->params, id, sp, &s->params);
		if (ok && ss->from == AV_SLEEP_PARAMS)
			ok = wake_tensor(&tr->start, id, ss, &tr->params);
		if (ok && ss->from == AV_SLEEP_FRESH) {
			if (!have_fresh) {
				session_start_params(s, &fresh);
				have_fresh = true;
			}
			ok = wake_tensor(&tr->start, id, ss, &fresh);
		}
	}
	if (have_fresh)
		av_params_free(&fresh);
	if (!ok)
		return av_fail(cause, _("the weights changed since training stopped"));
	tr->asleep = false;
	params_changed(tr);
	for (int i = 0; i < tr->n_items; i++) {
		struct av_train_item *it = &tr->items[i];
		if (!av_trace_run(&it->trace, &tr->params, &tr->cfg, it->query, it->source, NULL, 0,
				  cause))
			return false;
		tr->forwarded[i] = tr->params_version;
	}
	if (tr->restart_on_wake)
		reset_state(tr);
	tr->restart_on_wake = false;
	return true;
}

bool av_trainer_tensor_is(const struct av_trainer *tr, int id, const float *x, size_t count)
{
	size_t have;
	const float *t = av_param_tensor(&tr->params, id, &have);
	if (t)
		return have == count && (count == 0 || av_tensor_same(t, x, count));
	const struct av_sleeping_tensor *sp = &tr->sleep_params[id];
	if (tr->asleep && sp->from == AV_SLEEP_SESSION)
		return x && sp->count == count && floats_hash(x, count) == sp->hash;
	return !x && count == 0;
}
