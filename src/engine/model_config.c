/* model_config.c: defaults, checks and enum names of a layer's settings. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "model_config.h"
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
		len += strlen(names[i]) + 4;
	char *out = av_calloc(len, 1);
	for (int i = 0; i < count; i++) {
		if (i > 0)
			strcat(out, i == count - 1 ? " or " : ", ");
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
		return av_fail(cause, "d_model must be between 1 and %d, not %d",
			       AV_MAX_D_MODEL, cfg->d_model);
	if (cfg->heads < 1)
		return av_fail(cause, "heads must be at least 1, not %d", cfg->heads);
	if (cfg->d_model % cfg->heads != 0)
		return av_fail(cause, "d_model %d is not divisible by heads %d "
			       "(each head takes d_model/heads columns)",
			       cfg->d_model, cfg->heads);
	if (!isfinite(cfg->temperature) || cfg->temperature <= 0)
		return av_fail(cause, "temperature must be a positive finite number, not %g",
			       cfg->temperature);
	if (cfg->max_positions < 1 || cfg->max_positions > AV_MAX_POSITIONS)
		return av_fail(cause, "max_positions must be between 1 and %d, not %d",
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
