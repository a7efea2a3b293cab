/*
 * matmul_blocks.h: the loops around a kernel's register blocks, shared by
 * matmul_avx2.c and matmul_avx512.c (each brings its own blocks and packing,
 * in its own vector width). Internal to those two files.
 *
 * Dot products (c = a . b^T, few rows): a chunk of b's rows (the weight,
 * about 96 KiB) stays in L2 while each block of a's rows (the few tokens, a
 * few KiB) stays in L1 and meets every row of the chunk; b is read from
 * memory once.
 *
 * Strips (c = a . b, or a . b^T copied): b is taken in blocks of KC rows by
 * NC columns (read from memory once, in runs of NC floats), copied into
 * contiguous strips (KC, width) that stay in L2 while every block of a's
 * rows passes them; c takes each block's sums in turn (k / KC loads and
 * stores of c, against KC FMAs per value). The copy is what keeps a weight
 * whose rows lie 4 KiB apart (GPT-2's (768, 3072) c_fc) from piling every
 * row into the same cache sets: read in place it ran at half the speed. A
 * product of one block of rows reads b in place: it meets b only once.
 */
#ifndef AV_MATMUL_BLOCKS_H
#define AV_MATMUL_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#define AV_BLOCK_KC 128
#define AV_BLOCK_NC 256

/* c (rows, cols) (+)= a (rows, k) . b^T (b (cols, k)) */
typedef void av_dot_block_fn(float *c, int ldc, const float *a, int lda, const float *b,
			     int ldb, int k, bool accumulate);

/* blocks[(rows - 1) * max_cols + cols - 1] for 1 <= rows, cols <= max */
static inline void av_dot_blocks(av_dot_block_fn *const *blocks, int max_rows, int max_cols,
				 float *c, int ldc, const float *a, int lda, const float *b,
				 int ldb, int n, int m, int k, bool accumulate)
{
	int chunk = (int)(96 * 1024 / 4 / (k > 0 ? k : 1)) / max_cols * max_cols;
	if (chunk < max_cols)
		chunk = max_cols;
	for (int j0 = 0; j0 < m; j0 += chunk) {
		int j_end = m - j0 < chunk ? m : j0 + chunk;
		for (int i = 0; i < n; i += max_rows) {
			int rows = n - i < max_rows ? n - i : max_rows;
			for (int j = j0; j < j_end; j += max_cols) {
				int cols = j_end - j < max_cols ? j_end - j : max_cols;
				blocks[(rows - 1) * max_cols + cols - 1](
					c + (size_t)i * ldc + j, ldc, a + (size_t)i * lda, lda,
					b + (size_t)j * ldb, ldb, k, accumulate);
			}
		}
	}
}

/* c (rows, width) (+)= a (rows, k) . b: b a packed strip (ldb = the strip
 * width, zeros past width) or b in place (read through masks past width) */
typedef void av_strip_block_fn(float *c, int ldc, const float *a, int lda, const float *b,
			       int ldb, int k, bool accumulate, int width, bool packed);

/* copies b's block (kc, columns) into strips of `width` columns, each
 * (kc, width) and contiguous: from b (kc rows ldb apart) or, transposed,
 * from b^T (columns rows ldb apart, kc floats each) */
typedef void av_pack_fn(float *packed, const float *b, int ldb, int kc, int columns);

struct av_strip_kernel {
	av_strip_block_fn *const *blocks; /* blocks[rows - 1], rows 1..max_rows */
	int max_rows, width;
	av_pack_fn *pack, *pack_transposed; /* the latter NULL: no b^T */
};

static inline void av_strip_rows(const struct av_strip_kernel *kn, float *c, int ldc,
				 const float *a, int lda, const float *b, int ldb, bool packed,
				 int n, int columns, int kc, bool add)
{
	for (int i = 0; i < n; i += kn->max_rows) {
		int rows = n - i < kn->max_rows ? n - i : kn->max_rows;
		for (int j = 0; j < columns; j += kn->width) {
			int width = columns - j < kn->width ? columns - j : kn->width;
			const float *bj = packed ? b + (size_t)j * kc : b + j;
			kn->blocks[rows - 1](c + (size_t)i * ldc + j, ldc, a + (size_t)i * lda, lda,
					     bj, packed ? kn->width : ldb, kc, add, width, packed);
		}
	}
}

/* Where av_strip_product's block (j0, p0) of b^T lies in a copy of all of
 * them: the blocks of a column block one after another, every column
 * block before the last full. */
static inline size_t av_strip_block_at(const struct av_strip_kernel *kn, int m, int k,
				       int j0, int p0)
{
	int columns = m - j0 < AV_BLOCK_NC ? m - j0 : AV_BLOCK_NC;
	size_t width = (size_t)(columns + kn->width - 1) / (size_t)kn->width * (size_t)kn->width;
	return (size_t)j0 * (size_t)k + (size_t)p0 * width;
}

/* The floats a copy of all the blocks of b^T (m, k) takes. */
static inline size_t av_strip_pack_size(const struct av_strip_kernel *kn, int m, int k)
{
	return (size_t)(m + kn->width - 1) / (size_t)kn->width * (size_t)kn->width * (size_t)k;
}

/* c (n, m) (+)= a (n, k) . b (b (k, m)), or . b^T (b (m, k)) when
 * transposed; packed is the caller's AV_BLOCK_KC * AV_BLOCK_NC floats.
 * kept, when not NULL (transposed, k > 0), holds every block of b^T
 * instead (av_strip_pack_size floats, at av_strip_block_at): copied there
 * as they are reached, or, when kept_full, read as an earlier product
 * left them. Either way the same blocks in the same order: the same bits. */
static inline void av_strip_product(const struct av_strip_kernel *kn, float *packed, float *c,
				    int ldc, const float *a, int lda, const float *b, int ldb,
				    bool transposed, int n, int m, int k, bool accumulate,
				    float *kept, bool kept_full)
{
	bool pack = transposed || n > kn->max_rows;
	for (int j0 = 0; j0 < m; j0 += AV_BLOCK_NC) {
		int columns = m - j0 < AV_BLOCK_NC ? m - j0 : AV_BLOCK_NC;
		for (int p0 = 0; p0 < k || p0 == 0; p0 += AV_BLOCK_KC) {
			int kc = k - p0 < AV_BLOCK_KC ? k - p0 : AV_BLOCK_KC;
			bool add = accumulate || p0 > 0;
			if (kc == 0 || !pack) {
				av_strip_rows(kn, c + j0, ldc, a + p0, lda,
					      b + (size_t)p0 * ldb + j0, ldb, false, n, columns,
					      kc, add);
				continue;
			}
			float *block = kept ? kept + av_strip_block_at(kn, m, k, j0, p0) : packed;
			if (transposed && !kept_full)
				kn->pack_transposed(block, b + (size_t)j0 * ldb + p0, ldb, kc,
						    columns);
			else if (!transposed)
				kn->pack(block, b + (size_t)p0 * ldb + j0, ldb, kc, columns);
			av_strip_rows(kn, c + j0, ldc, a + p0, lda, block, ldb, true, n, columns,
				      kc, add);
		}
	}
}

#endif
