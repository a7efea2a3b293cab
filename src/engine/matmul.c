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
 * Why attnview's own kernels beside it (matmul_avx2.c, matmul_avx512.c):
 * a library's general product packs both operands first, which costs as
 * much as the arithmetic when a sentence has 5 tokens, and the OpenBLAS
 * Debian ships runs its AVX2 kernels on CPUs whose AVX-512 units do twice
 * the work per cycle. Two kernels (dot products for few rows; a register
 * block over packed strips of the weight) in two widths are a few hundred
 * lines, checked against a double product by tests/test_matmul.c, and
 * choose_kernel below sends each shape to whichever bench_kernels measured
 * fastest. OpenBLAS keeps what they are not faster at.
 *
 * Determinism: single-threaded OpenBLAS gives the same bits for the same
 * inputs on the same machine (its summation order depends only on the
 * shapes and the kernel chosen for the CPU; so does choose_kernel's
 * choice and each kernel's order of sums), which is what a classroom needs
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matmul.h"
#include "matmul_plain.h"
#include "matmul_avx2.h"
#include "matmul_avx512.h"

/* c[i][j] (+)= sum_p a[i][p] * b(p, j), summed in double: each element is
 * one dot product (av_dot_in_chains), rounded once, so the result is the
 * float nearest the exact sum to within about 1e-16 relative, on every
 * CPU. The reference kernel (--without-blas) and, with a BLAS, the kernel
 * of products too small for a library call (china-panda's D=3). The price,
 * measured by `make bench` (README, Performance): a D=512 forward pass runs
 * at about 4 GFLOP/s here where OpenBLAS's float32 reaches about 60 (the
 * conversions, and SSE2's two doubles per instruction against AVX2's eight
 * floats, with no blocking for the cache). stride is 1 (b^T: a row of b) or
 * ldb (b: a column); each layout is its own copy of the loops, so the
 * compiler knows the stride of the transposed one. */
__attribute__((always_inline))
static inline void plain_gemm_layout(bool b_transposed, float *restrict c, int ldc,
				     const float *restrict a, int lda, const float *restrict b,
				     int ldb, int n, int m, int k, float beta)
{
	size_t stride = b_transposed ? 1 : (size_t)ldb;
	for (int i = 0; i < n; i++) {
		const float *ai = a + (size_t)i * lda;
		float *ci = c + (size_t)i * ldc;
		for (int j = 0; j < m; j++) {
			const float *bj = b_transposed ? b + (size_t)j * ldb : b + j;
			double s = av_dot_in_chains(ai, bj, stride, k);
			ci[j] = (float)(beta != 0 ? s + ci[j] : s);
		}
	}
}

/* china-panda's products (D = 3, one head of 3 columns) get a copy of the
 * loops with k the constant 3, which the compiler unrolls: the loops'
 * control was a third of a product of 2x3 by 3x3. The sums are the same,
 * in the same order. */
static void plain_gemm(bool b_transposed, float *c, int ldc, const float *a, int lda,
		       const float *b, int ldb, int n, int m, int k, float beta)
{
	if (b_transposed && k == 3)
		plain_gemm_layout(true, c, ldc, a, lda, b, ldb, n, m, 3, beta);
	else if (b_transposed)
		plain_gemm_layout(true, c, ldc, a, lda, b, ldb, n, m, k, beta);
	else
		plain_gemm_layout(false, c, ldc, a, lda, b, ldb, n, m, k, beta);
}

#if HAVE_BLAS
#include <cblas.h>
#include <threads.h>

/* Products of at most this many multiply-adds go to plain_gemm. */
#define SMALL_PRODUCT AV_MATMUL_PLAIN_MOST

static once_flag one_thread_once = ONCE_FLAG_INIT;

static void set_one_thread(void)
{
#if HAVE_OPENBLAS_SET_NUM_THREADS
	openblas_set_num_threads(1);
#endif
}

enum kernel { KERNEL_PLAIN, KERNEL_BLAS, KERNEL_AVX2, KERNEL_AVX512 };

/* Which kernel multiplies (n, k) by op(b) (m columns): what `make bench`'s
 * bench_kernels measured fastest here (GFLOP/s, AVX-512 / AVX2 / OpenBLAS):
 *   b^T, up to 8 rows: AVX2's dot products (5 x 512 x 512: 72 / 76 / 26);
 *   b^T, more rows: AVX-512 (16 x 512 x 512: 124 / 101 / 64, its dot
 *     products; 64 x 512 x 512: 165 / 104 / 94, b^T copied into strips;
 *     1024 x 2304 x 768: 191 / 100 / 98); without AVX-512, AVX2 up to 96
 *     rows (OpenBLAS's packing pays past that);
 *   b: AVX-512 at every size (32 x 3072 x 768, GPT-2's c_fc: 113 / 67 /
 *     82; 1024 x 2304 x 768: 196 / 104 / 102); without it AVX2 up to 16
 *     rows or a b of at most 16384 floats (attention's weights . V).
 * OpenBLAS 0.3.21 runs its AVX2 kernels on this CPU; the AVX-512 units do
 * twice the FMAs per cycle. Shapes and CPU alone decide, so a classroom's
 * server gives every follower the same bits. */
static enum kernel choose_kernel(bool b_transposed, int n, int m, int k)
{
	bool avx2 = av_avx2_usable(), avx512 = av_avx512_usable();
	if (b_transposed) {
		if (avx512 && (n > 8 || !avx2))
			return KERNEL_AVX512;
		return avx2 && n <= 96 ? KERNEL_AVX2 : KERNEL_BLAS;
	}
	if (avx512)
		return KERNEL_AVX512;
	return avx2 && (n <= 16 || (size_t)m * k <= 16384) ? KERNEL_AVX2 : KERNEL_BLAS;
}

/* c (n, m) = a (n, k) . op(b), op(b) = b^T (b (m, k)) or b (b (k, m));
 * beta 1 adds to what c holds (the bias rows av_matmul put there). Few
 * rows go to attnview's own kernels where they beat OpenBLAS (its packing
 * of the weight costs as much as the arithmetic when a sentence has 5
 * tokens; its AVX2 kernels leave half of an AVX-512 core idle). */
/* The kernel gemm gives a product of n > 0 rows and m > 0 columns.
 * OpenBLAS's call, packing and buffer locking cost about a microsecond,
 * more than the whole of china-panda's D=3 products: those go to
 * plain_gemm. The choice depends only on the shapes (and the CPU), so a
 * given product always takes the same path. */
static enum kernel route(bool b_transposed, int n, int m, int k)
{
	if ((size_t)n * m * k <= SMALL_PRODUCT)
		return KERNEL_PLAIN;
	return choose_kernel(b_transposed, n, m, k);
}

bool av_matmul_is_plain(int n, int m, int k)
{
	return n <= 0 || m <= 0 || route(true, n, m, k) == KERNEL_PLAIN;
}

static void gemm(bool b_transposed, float *c, int ldc, const float *a, int lda,
		 const float *b, int ldb, int n, int m, int k, float beta)
{
	if (n <= 0 || m <= 0)
		return;
	switch (route(b_transposed, n, m, k)) {
	case KERNEL_PLAIN:
		plain_gemm(b_transposed, c, ldc, a, lda, b, ldb, n, m, k, beta);
		return;
	case KERNEL_AVX2:
		(b_transposed ? av_avx2_gemm_nt : av_avx2_gemm_nn)(c, ldc, a, lda, b, ldb, n, m, k,
								  beta != 0);
		return;
	case KERNEL_AVX512:
		(b_transposed ? av_avx512_gemm_nt : av_avx512_gemm_nn)(c, ldc, a, lda, b, ldb, n, m,
								      k, beta != 0);
		return;
	case KERNEL_BLAS:
		break;
	}
	call_once(&one_thread_once, set_one_thread);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans,
		    n, m, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

/* gemm(true, ...) with b^T's copy kept in *pk (matmul.h) where gemm would
 * take the AVX-512 kernel, the only one that copies b^T; a separate path,
 * so that gemm's other callers (china-panda's small products among them)
 * pass nothing more. */
static void gemm_nt_kept(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
			 int n, int m, int k, float beta, struct av_packed *pk, uint64_t stamp)
{
	if (n > 0 && m > 0 && route(true, n, m, k) == KERNEL_AVX512)
		av_avx512_gemm_nt_kept(c, ldc, a, lda, b, ldb, n, m, k, beta != 0, pk, stamp);
	else
		gemm(true, c, ldc, a, lda, b, ldb, n, m, k, beta);
}

const char *av_matmul_backend(void)
{
	static char name[96];
	if (!name[0]) {
		snprintf(name, sizeof(name), "%s%s",
			 av_avx512_usable() ? "own AVX-512 and AVX2 kernels, "
			 : av_avx2_usable() ? "own AVX2 kernels, " : "",
#if HAVE_OPENBLAS_GET_CORENAME
			 "OpenBLAS ");
		strncat(name, openblas_get_corename(), sizeof(name) - strlen(name) - 1);
#else
			 "BLAS");
#endif
	}
	return name;
}

#else

const char *av_matmul_backend(void)
{
	return "reference";
}

bool av_matmul_is_plain(int n, int m, int k)
{
	(void)n, (void)m, (void)k;
	return true;
}

static void gemm(bool b_transposed, float *c, int ldc, const float *a, int lda,
		 const float *b, int ldb, int n, int m, int k, float beta)
{
	plain_gemm(b_transposed, c, ldc, a, lda, b, ldb, n, m, k, beta);
}

static void gemm_nt_kept(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
			 int n, int m, int k, float beta, struct av_packed *pk, uint64_t stamp)
{
	(void)pk, (void)stamp;   /* nothing is copied */
	plain_gemm(true, c, ldc, a, lda, b, ldb, n, m, k, beta);
}

#endif

/* the bias first, then added to, as torch.addmm does */
static void bias_rows(float *out, const float *b, int n, int out_dim)
{
	for (int i = 0; b && i < n; i++)
		memcpy(out + (size_t)i * out_dim, b, (size_t)out_dim * sizeof(float));
}

void av_matmul(float *out, const float *x, const float *w, const float *b,
	       int n, int in_dim, int out_dim, enum av_weight_layout layout)
{
	bias_rows(out, b, n, out_dim);
	if (layout == AV_W_OUT_IN)
		gemm(true, out, out_dim, x, in_dim, w, in_dim, n, out_dim, in_dim, b ? 1.0f : 0.0f);
	else
		gemm(false, out, out_dim, x, in_dim, w, out_dim, n, out_dim, in_dim, b ? 1.0f : 0.0f);
}

void av_matmul_kept(float *out, const float *x, const float *w, const float *b,
		    int n, int in_dim, int out_dim, struct av_packed *pk, uint64_t stamp)
{
	bias_rows(out, b, n, out_dim);
	gemm_nt_kept(out, out_dim, x, in_dim, w, in_dim, n, out_dim, in_dim, b ? 1.0f : 0.0f, pk,
		     stamp);
}

void av_packed_free(struct av_packed *pk)
{
	free(pk->data);
	*pk = (struct av_packed){ 0 };
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
