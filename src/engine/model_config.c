/* model_config.c: defaults, checks and enum names of a layer's settings. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "model_config.h"
#include "i18n.h"
#include "number.h"
#include "util.h"

const char *const av_mode_names[] = { "self", "causal", "cross", NULL };
const char *const av_scale_names[] = { "dk", "dmodel", "none", NULL };
const char *const av_positional_names[] = { "learned", "sinusoidal", "none", NULL };
const char *const av_init_names[] = { "normal", "xavier", "torch", NULL };

bool av_enum_parse(const char *const names[], const char *name, int *value)
{
	for (int i = 0; names[i]; i++) {
		if (strcmp(names[i], name) == 0) {
			*value = i;
			return true;
		}
	}
	return false;
}

char *av_enum_list(const char *const names[])
{
	size_t len = 1;
	int count = 0;
	for (int i = 0; names[i]; i++, count++)
		len += strlen(names[i]) + 16;
	char *out = av_calloc(len, 1);
	for (int i = 0; i < count; i++) {
		if (i > 0)
			/* TRANSLATORS: between the last two names of a list: "self, causal or cross" */
		strcat(out, i == count - 1 ? _(" or ") : _(", "));
		strcat(out, names[i]);
	}
	return out;
}

void av_config_default(struct av_config *cfg)
{
	cfg->d_model = 8;
	cfg->heads = 2;
	cfg->mode = AV_MODE_SELF;
	cfg->scale = AV_SCALE_DK;
	cfg->temperature = 1.0;
	cfg->positional = AV_POS_SINUSOIDAL;
	cfg->bias = false;
	cfg->seed = 42;
	cfg->init = AV_INIT_NORMAL;
	cfg->max_positions = 64;
}

bool av_config_check(const struct av_config *cfg, char **cause)
{
	if (cfg->d_model < 1 || cfg->d_model > AV_MAX_D_MODEL)
		return av_fail(cause, _("d_model must be between 1 and %d, not %d"),
			       AV_MAX_D_MODEL, cfg->d_model);
	if (cfg->heads < 1)
		return av_fail(cause, _("heads must be at least 1, not %d"), cfg->heads);
	if (cfg->d_model % cfg->heads != 0)
		return av_fail(cause, _("d_model %d is not divisible by heads %d "
			       "(each head takes d_model/heads columns)"),
			       cfg->d_model, cfg->heads);
	if (!(cfg->temperature >= AV_MIN_TEMPERATURE && cfg->temperature <= AV_MAX_TEMPERATURE))
		return av_fail(cause, _("temperature must be between %g and %g, not %g"),
			       AV_MIN_TEMPERATURE, AV_MAX_TEMPERATURE, cfg->temperature);
	if (cfg->max_positions < 1 || cfg->max_positions > AV_MAX_POSITIONS)
		return av_fail(cause, _("max_positions must be between 1 and %d, not %d"),
			       AV_MAX_POSITIONS, cfg->max_positions);
	return true;
}

bool av_config_equal(const struct av_config *a, const struct av_config *b)
{
	return a->d_model == b->d_model && a->heads == b->heads && a->mode == b->mode
		&& a->scale == b->scale && a->temperature == b->temperature
		&& a->positional == b->positional && a->bias == b->bias
		&& a->seed == b->seed && a->init == b->init
		&& a->max_positions == b->max_positions;
}

bool av_parse_seed(const char *text, uint64_t *out, char **cause)
{
	char max_seed[24];   /* one msgid for every platform's PRIu64 */
	snprintf(max_seed, sizeof max_seed, "%" PRIu64, AV_MAX_SEED);
	long long v;
	if (!av_integer_parse(text, &v))
		return av_fail(cause, _("expected a whole number from 0 to %s, got \"%s\""),
			       max_seed, text);
	if (v < 0 || (uint64_t)v > AV_MAX_SEED)
		return av_fail(cause, _("%lld is out of range (0 to %s)"), v, max_seed);
	*out = (uint64_t)v;
	return true;
}

bool av_parse_temperature(const char *text, double *out, char **cause)
{
	double v;
	if (!av_number_parse(text, &v) || !(v >= AV_MIN_TEMPERATURE && v <= AV_MAX_TEMPERATURE))
		return av_fail(cause, _("expected a number between %g and %g, got \"%s\""),
			       AV_MIN_TEMPERATURE, AV_MAX_TEMPERATURE, text);
	*out = v;
	return true;
}

int av_config_head_dim(const struct av_config *cfg)
{
	return cfg->d_model / cfg->heads;
}

double av_config_divisor(const struct av_config *cfg)
{
	double s = 1.0;
	if (cfg->scale == AV_SCALE_DK)
		s = sqrt((double)av_config_head_dim(cfg));
	else if (cfg->scale == AV_SCALE_DMODEL)
		s = sqrt((double)cfg->d_model);
	return s * cfg->temperature;
}

/* --- the memory budget */

double av_config_param_count(const struct av_config *cfg, long vocab_size)
{
	double D = cfg->d_model;
	double rows = (double)vocab_size
		      + (cfg->positional == AV_POS_LEARNED ? cfg->max_positions : 0);
	return rows * D + 4 * D * D + (cfg->bias ? 4 * D : 0);
}

double av_memory_estimate(const struct av_config *cfg, long vocab_size, enum av_workload w)
{
	/* training's 72 plus 4 for the screen's copies of W^T (attention.h,
	 * keeps_packed), since the screen counts as training */
	static const double bytes_per_param[] = { 12, 40, 76 };
	const double fixed = 16.0 * (1 << 20);   /* the program, the trace, the screen */
	return fixed + bytes_per_param[w] * av_config_param_count(cfg, vocab_size);
}

/* "2.5 GiB", "700 MiB" */
static char *bytes_text(double bytes)
{
	double gib = bytes / (double)(1u << 30);
	if (gib >= 1)
		return av_printf(gib == floor(gib) ? "%.0f GiB" : "%.1f GiB", gib);
	return av_printf("%.0f MiB", bytes / (double)(1u << 20));
}

bool av_check_memory(const struct av_config *cfg, long vocab_size, enum av_workload w,
		     char **cause)
{
	static const char *const work[] = { N_("this model"), N_("--dump of this model"),
					    N_("training this model") };
	/* a sentence and a source add a row for each unknown word */
	long words = vocab_size + 2 * 64;
	double need = av_memory_estimate(cfg, words, w);
	if (need <= AV_MEMORY_BUDGET)
		return true;
	char *need_text = bytes_text(need), *limit_text = bytes_text(AV_MEMORY_BUDGET);
	av_fail(cause, _("%s needs about %s (%.1f million parameters: d_model %d, %ld words%s); "
		"the limit is %s: use a smaller d_model or vocabulary"), _(work[w]), need_text,
		av_config_param_count(cfg, words) / 1e6, cfg->d_model, vocab_size,
		cfg->positional == AV_POS_LEARNED ? _(", learned positions") : "", limit_text);
	free(need_text);
	free(limit_text);
	return false;
}
