/* matmul.c: the reference matrix product (see matmul.h). */
#include "config.h"

#include <stddef.h>

#include "matmul.h"

/* One output element in double: four independent chains keep the adds
 * from waiting on each other; stride is 1 (out-in) or out_dim (in-out). */
static double dot(const float *x, const float *w, size_t stride, int in_dim)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int c = 0;
	for (; c + 4 <= in_dim; c += 4) {
		s0 += (double)x[c] * w[c * stride];
		s1 += (double)x[c + 1] * w[(c + 1) * stride];
		s2 += (double)x[c + 2] * w[(c + 2) * stride];
		s3 += (double)x[c + 3] * w[(c + 3) * stride];
	}
	for (; c < in_dim; c++)
		s0 += (double)x[c] * w[c * stride];
	return (s0 + s1) + (s2 + s3);
}

void av_matmul(float *out, const float *x, const float *w, const float *b,
	       int n, int in_dim, int out_dim, enum av_weight_layout layout)
{
	for (int i = 0; i < n; i++) {
		const float *xi = x + (size_t)i * in_dim;
		float *oi = out + (size_t)i * out_dim;
		for (int o = 0; o < out_dim; o++) {
			const float *wo = layout == AV_W_OUT_IN ? w + (size_t)o * in_dim : w + o;
			size_t stride = layout == AV_W_OUT_IN ? 1 : (size_t)out_dim;
			double s = dot(xi, wo, stride, in_dim);
			oi[o] = (float)(b ? s + b[o] : s);
		}
	}
}
