/* matmul.c: the matrix products (see matmul.h).
 *
 * Why OpenBLAS (when configure finds it): a forward pass at D=512 is 95%
 * matrix products, and a product near the machine's limit needs register
 * blocking, cache blocking and packing for each SIMD width (SSE2 to
 * AVX-512), which is a library's job, not a teaching program's. OpenBLAS is
 * what Debian's PyTorch and NumPy use (so the comparison is like for like),
 * is packaged everywhere (libopenblas-dev), is BSD licensed, and picks its
 * kernels for the CPU at run time: one binary is fast on every machine while
 * the build itself assumes nothing past x86-64's SSE2 (-march=native is not
 * an option: CI and the classroom server may differ). BLIS would do as
 * well; Eigen is C++; MKL is not free software.
 *
 * Determinism: single-threaded OpenBLAS gives the same bits for the same
 * inputs on the same machine (its summation order depends only on the
 * shapes and the kernel chosen for the CPU), which is what a classroom needs
 * (the teacher and the followers run on one server). Another CPU may round
 * differently in the last bit; the fixtures' tolerance covers that.
 *
 * One thread: attnview runs as hundreds of processes on a shared server (a
 * class of 300); an OpenBLAS that spread each product over every core would
 * make them fight (the pthread build spins its workers), and the products
 * here are small (at most (64, 512) . (512, 512), 33 MFLOP), where threads
 * cost more in hand-offs than they save. So the first product sets
 * openblas_set_num_threads(1); OPENBLAS_NUM_THREADS=1 in the environment
 * also keeps the library's pool from being started at all. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "matmul.h"
#include "matmul_avx2.h"

/* c[i][j] (+)= sum_p a[i][p] * b(p, j), summed in double in p order: each
 * element is one dot product, rounded once, so the result is the float
 * nearest the exact sum to within about 1e-16 relative, on every CPU. The
 * price, measured by `make bench` (README, Performance): a D=512 forward
 * pass runs at about 4 GFLOP/s here where OpenBLAS's float32 reaches about
 * 60 (the conversions, and SSE2's two doubles per instruction against
 * AVX2's eight floats, with no blocking for the cache). Four chains keep the adds
 * from waiting on each other; stride is 1 (b^T: a row of b) or ldb (b: a
 * column). */
static void plain_gemm(bool b_transposed, float *c, int ldc, const float *a, int lda,
		       const float *b, int ldb, int n, int m, int k, float beta)
{
	size_t stride = b_transposed ? 1 : (size_t)ldb;
	for (int i = 0; i < n; i++) {
		const float *ai = a + (size_t)i * lda;
		float *ci = c + (size_t)i * ldc;
		for (int j = 0; j < m; j++) {
			const float *bj = b_transposed ? b + (size_t)j * ldb : b + j;
			double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
			int p = 0;
			for (; p + 4 <= k; p += 4) {
				s0 += (double)ai[p] * bj[p * stride];
				s1 += (double)ai[p + 1] * bj[(p + 1) * stride];
				s2 += (double)ai[p + 2] * bj[(p + 2) * stride];
				s3 += (double)ai[p + 3] * bj[(p + 3) * stride];
			}
			for (; p < k; p++)
				s0 += (double)ai[p] * bj[p * stride];
			double s = (s0 + s1) + (s2 + s3);
			ci[j] = (float)(beta != 0 ? s + ci[j] : s);
		}
	}
}

#if HAVE_BLAS
#include <cblas.h>
#include <threads.h>

/* Products of at most this many multiply-adds go to the plain kernel:
 * OpenBLAS's call, packing and buffer locking cost about a microsecond,
 * more than the whole of china-panda's D=3 products. The choice depends
 * only on the shapes, so a given product always takes the same path. */
#define SMALL_PRODUCT 512

static once_flag one_thread_once = ONCE_FLAG_INIT;

static void set_one_thread(void)
{
#if HAVE_OPENBLAS_SET_NUM_THREADS
	openblas_set_num_threads(1);
#endif
}

/* c (n, m) = a (n, k) . op(b), op(b) = b^T (b (m, k)) or b (b (k, m));
 * beta 1 adds to what c holds (the bias rows av_matmul put there). Few
 * rows go to the AVX2 kernels where they beat OpenBLAS (its packing of the
 * weight costs as much as the arithmetic when a sentence has 5 tokens). */
static void gemm(bool b_transposed, float *c, int ldc, const float *a, int lda,
		 const float *b, int ldb, int n, int m, int k, float beta)
{
	if (n <= 0 || m <= 0)
		return;
	if ((size_t)n * m * k <= SMALL_PRODUCT) {
		plain_gemm(b_transposed, c, ldc, a, lda, b, ldb, n, m, k, beta);
		return;
	}
	if (b_transposed && av_avx2_nt_suits(n, m, k)) {
		av_avx2_gemm_nt(c, ldc, a, lda, b, ldb, n, m, k, beta != 0);
		return;
	}
	if (!b_transposed && av_avx2_nn_suits(n, m, k)) {
		av_avx2_gemm_nn(c, ldc, a, lda, b, ldb, n, m, k, beta != 0);
		return;
	}
	call_once(&one_thread_once, set_one_thread);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans,
		    n, m, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

const char *av_matmul_backend(void)
{
#if HAVE_OPENBLAS_GET_CORENAME
	static char name[64];
	if (!name[0]) {
		strcpy(name, "OpenBLAS ");
		strncat(name, openblas_get_corename(), sizeof(name) - strlen(name) - 1);
	}
	return name;
#else
	return "BLAS";
#endif
}

#else

const char *av_matmul_backend(void)
{
	return "reference";
}

static void gemm(bool b_transposed, float *c, int ldc, const float *a, int lda,
		 const float *b, int ldb, int n, int m, int k, float beta)
{
	plain_gemm(b_transposed, c, ldc, a, lda, b, ldb, n, m, k, beta);
}

#endif

void av_matmul(float *out, const float *x, const float *w, const float *b,
	       int n, int in_dim, int out_dim, enum av_weight_layout layout)
{
	/* the bias first, then added to, as torch.addmm does */
	for (int i = 0; b && i < n; i++)
		memcpy(out + (size_t)i * out_dim, b, (size_t)out_dim * sizeof(float));
	if (layout == AV_W_OUT_IN)
		gemm(true, out, out_dim, x, in_dim, w, in_dim, n, out_dim, in_dim, b ? 1.0f : 0.0f);
	else
		gemm(false, out, out_dim, x, in_dim, w, out_dim, n, out_dim, in_dim, b ? 1.0f : 0.0f);
}

void av_matmul_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		  int n, int m, int k)
{
	gemm(true, c, ldc, a, lda, b, ldb, n, m, k, 0.0f);
}

void av_matmul_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		  int n, int m, int k)
{
	gemm(false, c, ldc, a, lda, b, ldb, n, m, k, 0.0f);
}
