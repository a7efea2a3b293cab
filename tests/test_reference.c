/* test_reference.c: every stage of the forward pass against PyTorch.
 *
 * tests/fixtures/ref-NAME.json are written by tests/make_fixtures.py (run by
 * hand with torch): each is a weights file (config + params) plus
 * "reference": the sentence, the source (cross mode), the hidden key
 * positions and every stage as PyTorch computes it in float64. This test
 * loads the weights, runs av_trace_run and compares every stage, the way
 * llm.c's test_gpt2.c checks its kernels: one line per stage with the
 * largest differences, and a failure naming the stage, head, row and column
 * of the worst element when it is over tolerance.
 *
 * Tolerance: |got - want| <= 1e-5 * max(1, |want|) per element; the "rel"
 * difference printed is |got - want| / max(1, |want|), the measure the
 * tolerance bounds. The mask must match exactly, and so must the hidden
 * cells of "masked" (PyTorch's -1e20 must be AV_MASKED_VALUE, the float
 * nearest it; those cells are left out of the masked stage's max diffs). */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "attention.h"
#include "model.h"
#include "util.h"
#include "weights.h"

#define TOLERANCE 1e-5
/* make_fixtures.py writes hidden cells of "masked" as -1e20 (a double). */
#define AV_MASKED_VALUE_REF (-1e20)

/* Every fixture make_fixtures.py writes; test_fixture_list checks that the
 * directory holds no others, so a new fixture cannot be silently skipped. */
static const char *const fixture_names[] = {
	"ref-mha-self",
	"ref-mha-causal",
	"ref-mha-cross",
	"ref-mha-padding",
	"ref-seed000-dmodel-512",
	"ref-seed000-dk",
	"ref-temperature",
	"ref-scale-none",
	"ref-china-panda-style",
};
#define N_FIXTURES ((int)(sizeof(fixture_names) / sizeof(fixture_names[0])))

/* The running comparison of one stage. */
struct diff {
	bool hidden_exact;           /* cells PyTorch set to -1e20 must be exactly
					AV_MASKED_VALUE and are left out of max_* */
	long hidden, hidden_wrong;
	double max_abs, max_rel;
	int head, row, col;          /* the worst element (by rel) */
	double got, want;
	long over;                   /* elements over tolerance */
	bool any;
};

struct check {
	const char *name;            /* fixture, "ref-mha-self" */
	char error[1024];            /* the first failure */
	int n_failed;                /* stages over tolerance */
};

static void check_fail(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check_fail(struct check *c, const char *fmt, ...)
{
	if (c->n_failed++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->error, sizeof c->error, fmt, ap);
		va_end(ap);
	}
}

static void diff_add(struct diff *d, double got, double want, int head, int row, int col)
{
	if (d->hidden_exact && want == (double)AV_MASKED_VALUE_REF) {
		d->hidden++;
		if (got != (double)AV_MASKED_VALUE) {
			d->hidden_wrong++;
			if (d->hidden_wrong == 1) {
				d->max_rel = INFINITY;
				d->head = head;
				d->row = row;
				d->col = col;
				d->got = got;
				d->want = want;
				d->any = true;
			}
			d->over++;
		}
		return;
	}
	double abs_diff = fabs(got - want);
	double rel = abs_diff / fmax(1.0, fabs(want));
	if (isnan(abs_diff))
		abs_diff = rel = INFINITY;
	if (!(rel <= TOLERANCE))
		d->over++;
	if (abs_diff > d->max_abs)
		d->max_abs = abs_diff;
	if (!d->any || rel > d->max_rel) {
		d->max_rel = rel;
		d->head = head;
		d->row = row;
		d->col = col;
		d->got = got;
		d->want = want;
	}
	d->any = true;
}

/* Prints the stage's line and records a failure naming the worst element. */
static void diff_report(struct check *c, const char *stage, const struct diff *d)
{
	if (d->hidden_exact)
		printf("%s %s: max abs diff %g, max rel diff %g (visible cells); "
		       "%ld of %ld hidden cells not -1e20\n", c->name, stage, d->max_abs,
		       d->max_rel, d->hidden_wrong, d->hidden);
	else
		printf("%s %s: max abs diff %g, max rel diff %g\n", c->name, stage,
		       d->max_abs, d->max_rel);
	fflush(stdout);
	if (d->over == 0)
		return;
	char where[64] = "";
	if (d->head >= 0)
		snprintf(where, sizeof where, "head %d, ", d->head);
	check_fail(c, "%s %s: %ld element(s) over tolerance %g; worst at %srow %d, col %d: "
		   "attnview %.9g, PyTorch %.17g (diff %g)", c->name, stage, d->over, TOLERANCE,
		   where, d->row, d->col, d->got, d->want, fabs(d->got - d->want));
}

/* A (rows, cols) list of lists of numbers? */
static bool matrix_shape_ok(struct check *c, const char *stage, const cJSON *m, int rows, int cols)
{
	if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != rows) {
		check_fail(c, "%s %s: expected %d rows in the fixture, got %d (attnview's shape "
			   "differs from PyTorch's)", c->name, stage, rows,
			   cJSON_IsArray(m) ? cJSON_GetArraySize(m) : -1);
		return false;
	}
	int i = 0;
	for (const cJSON *r = m->child; r; r = r->next, i++) {
		if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != cols) {
			check_fail(c, "%s %s: row %d: expected %d columns in the fixture, got %d",
				   c->name, stage, i, cols,
				   cJSON_IsArray(r) ? cJSON_GetArraySize(r) : -1);
			return false;
		}
		for (const cJSON *x = r->child; x; x = x->next) {
			if (!cJSON_IsNumber(x)) {
				check_fail(c, "%s %s: row %d: not a number", c->name, stage, i);
				return false;
			}
		}
	}
	return true;
}

/* Adds got (rows, cols, row-major) against the fixture matrix to d. */
static bool diff_matrix(struct check *c, struct diff *d, const char *stage, const cJSON *m,
			const float *got, int rows, int cols, int head)
{
	if (!got) {
		check_fail(c, "%s %s: attnview has no such stage (NULL)", c->name, stage);
		return false;
	}
	if (!matrix_shape_ok(c, stage, m, rows, cols))
		return false;
	int i = 0;
	for (const cJSON *r = m->child; r; r = r->next, i++) {
		int j = 0;
		for (const cJSON *x = r->child; x; x = x->next, j++)
			diff_add(d, got[(size_t)i * cols + j], x->valuedouble, head, i, j);
	}
	return true;
}

static void compare_stage(struct check *c, const cJSON *stages, const char *stage,
			  const float *got, int rows, int cols)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(stages, stage);
	struct diff d = { .head = -1 };
	if (!m) {
		check_fail(c, "%s: the fixture has no stage \"%s\"", c->name, stage);
		return;
	}
	if (diff_matrix(c, &d, stage, m, got, rows, cols, -1))
		diff_report(c, stage, &d);
}

/* A per-head stage: the trace holds (H, rows, cols) contiguous. */
static void compare_head_stage(struct check *c, const cJSON *heads, const char *stage,
			       const float *got, int n_heads, int rows, int cols)
{
	struct diff d = { .head = -1, .hidden_exact = strcmp(stage, "masked") == 0 };
	int h = 0;
	for (const cJSON *hd = heads->child; hd; hd = hd->next, h++) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(hd, stage);
		char label[64];
		snprintf(label, sizeof label, "heads[%d].%s", h, stage);
		if (!m) {
			check_fail(c, "%s: the fixture has no stage %s", c->name, label);
			return;
		}
		if (!diff_matrix(c, &d, label, m, got ? got + (size_t)h * rows * cols : NULL,
				 rows, cols, h))
			return;
	}
	if (h != n_heads) {
		check_fail(c, "%s %s: the fixture has %d heads, attnview %d", c->name, stage,
			   h, n_heads);
		return;
	}
	diff_report(c, stage, &d);
}

static void compare_mask(struct check *c, const cJSON *stages, const unsigned char *mask,
			 int rows, int cols)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(stages, "mask");
	if (!m) {
		check_fail(c, "%s: the fixture has no stage \"mask\"", c->name);
		return;
	}
	if (!mask) {
		check_fail(c, "%s mask: attnview has no such stage (NULL)", c->name);
		return;
	}
	if (!matrix_shape_ok(c, "mask", m, rows, cols))
		return;
	long wrong = 0;
	int i = 0;
	for (const cJSON *r = m->child; r; r = r->next, i++) {
		int j = 0;
		for (const cJSON *x = r->child; x; x = x->next, j++) {
			int got = mask[(size_t)i * cols + j];
			if (got != (int)x->valuedouble && wrong++ == 0)
				check_fail(c, "%s mask: row %d, col %d: attnview %d, PyTorch %d",
					   c->name, i, j, got, (int)x->valuedouble);
		}
	}
	printf("%s mask: %ld of %d cells differ\n", c->name, wrong, rows * cols);
	fflush(stdout);
}

/* The rows of a stage in the fixture (to check the trace's n and m). */
static int stage_rows(const cJSON *stages, const char *stage)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(stages, stage);
	return cJSON_IsArray(m) ? cJSON_GetArraySize(m) : -1;
}

static void run_fixture(struct check *c, const char *path)
{
	char *text = NULL, *cause = NULL;
	size_t len = 0;
	cJSON *json = NULL;
	struct av_params params;
	struct av_trace t;
	struct av_config cfg;
	unsigned given = 0;
	int *keys = NULL;

	memset(&params, 0, sizeof params);
	memset(&t, 0, sizeof t);
	av_config_default(&cfg);

	if (!av_read_file(path, &text, &len, &cause)) {
		check_fail(c, "%s", cause);
		goto out;
	}
	json = cJSON_Parse(text);
	if (!json) {
		check_fail(c, "%s: not valid JSON", path);
		goto out;
	}
	/* A fixture is a weights file with a "reference" section beside it. */
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(json, "reference");
	if (!av_weights_parse(text, path, &cfg, &given, &params, &cause)) {
		check_fail(c, "%s: weights: %s", c->name, cause);
		goto out;
	}
	const cJSON *sentence = cJSON_GetObjectItemCaseSensitive(ref, "sentence");
	const cJSON *source = cJSON_GetObjectItemCaseSensitive(ref, "source");
	const cJSON *mask_keys = cJSON_GetObjectItemCaseSensitive(ref, "mask_keys");
	const cJSON *stages = cJSON_GetObjectItemCaseSensitive(ref, "stages");
	const cJSON *heads = cJSON_GetObjectItemCaseSensitive(stages, "heads");
	if (!cJSON_IsString(sentence) || (source && !cJSON_IsString(source)) ||
	    !cJSON_IsArray(mask_keys) || !cJSON_IsObject(stages) || !cJSON_IsArray(heads)) {
		check_fail(c, "%s: the fixture's \"reference\" is malformed", c->name);
		goto out;
	}
	int n_keys = cJSON_GetArraySize(mask_keys);
	keys = av_calloc((size_t)n_keys + 1, sizeof *keys);
	int k = 0;
	for (const cJSON *x = mask_keys->child; x; x = x->next)
		keys[k++] = x->valueint;

	if (!av_trace_run(&t, &params, &cfg, sentence->valuestring,
			  source ? source->valuestring : NULL, keys, n_keys, &cause)) {
		check_fail(c, "%s: av_trace_run: %s", c->name, cause);
		goto out;
	}

	bool cross = cfg.mode == AV_MODE_CROSS;
	int n = stage_rows(stages, "embedding");
	int m = cross ? stage_rows(stages, "source_embedding") : n;
	int D = cfg.d_model, H = cfg.heads, dh = D / H;
	if (t.n != n || t.m != m || t.d_model != D || t.heads != H || t.head_dim != dh) {
		check_fail(c, "%s: trace shape n=%d m=%d D=%d H=%d dh=%d, PyTorch n=%d m=%d "
			   "D=%d H=%d dh=%d", c->name, t.n, t.m, t.d_model, t.heads,
			   t.head_dim, n, m, D, H, dh);
		goto out;
	}

	compare_stage(c, stages, "embedding", t.embedding, n, D);
	if (cross)
		compare_stage(c, stages, "source_embedding", t.source_embedding, m, D);
	compare_stage(c, stages, "q", t.q, n, D);
	compare_stage(c, stages, "k", t.k, m, D);
	compare_stage(c, stages, "v", t.v, m, D);
	compare_mask(c, stages, t.mask, n, m);
	compare_head_stage(c, heads, "scores", t.scores, H, n, m);
	compare_head_stage(c, heads, "scaled", t.scaled, H, n, m);
	compare_head_stage(c, heads, "masked", t.masked, H, n, m);
	compare_head_stage(c, heads, "weights", t.weights, H, n, m);
	compare_head_stage(c, heads, "context", t.context, H, n, dh);
	compare_stage(c, stages, "concat", t.concat, n, D);
	compare_stage(c, stages, "output", t.output, n, D);
	compare_stage(c, stages, "residual", t.residual, n, D);

out:
	free(keys);
	cJSON_Delete(json);
	av_trace_free(&t);
	av_params_free(&params);
	free(cause);
	free(text);
}

static void test_fixture(void **state)
{
	const char *name = fixture_names[(uintptr_t)*state];
	struct check c = { .name = name };
	char *path = av_printf("%s/fixtures/%s.json", TESTS_SRCDIR, name);
	run_fixture(&c, path);
	free(path);
	if (c.n_failed > 0)
		fail_msg("%s (%d failure(s) in all)", c.error, c.n_failed);
}

/* The directory holds exactly the fixtures listed above. */
static void test_fixture_list(void **state)
{
	const char *dir_path = TESTS_SRCDIR "/fixtures";
	DIR *dir = opendir(dir_path);
	char unknown[256] = "";
	int seen = 0;
	assert_non_null(dir);
	for (struct dirent *e; (e = readdir(dir)) != NULL;) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, "ref-", 4) != 0 || len < 5 ||
		    strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		bool known = false;
		for (int i = 0; i < N_FIXTURES; i++) {
			size_t nl = strlen(fixture_names[i]);
			if (nl == len - 5 && strncmp(e->d_name, fixture_names[i], nl) == 0)
				known = true;
		}
		if (known)
			seen++;
		else if (!unknown[0])
			snprintf(unknown, sizeof unknown, "%s", e->d_name);
	}
	closedir(dir);
	if (unknown[0])
		fail_msg("%s/%s is not in test_reference.c's fixture_names", dir_path, unknown);
	assert_int_equal(seen, N_FIXTURES);
}

int main(void)
{
	struct CMUnitTest tests[N_FIXTURES + 1];
	for (int i = 0; i < N_FIXTURES; i++) {
		tests[i] = (struct CMUnitTest){
			.name = fixture_names[i],
			.test_func = test_fixture,
			.initial_state = (void *)(uintptr_t)i,
		};
	}
	tests[N_FIXTURES] = (struct CMUnitTest){
		.name = "fixture_list", .test_func = test_fixture_list,
	};
	return _cmocka_run_group_tests("reference", tests, N_FIXTURES + 1, NULL, NULL);
}
