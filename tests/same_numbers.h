/* same_numbers.h: two sessions show the same numbers, bit for bit (a
 * follower recomputes the teacher's; it never copies them). Include after
 * cmocka.h and session.h. */
#ifndef AV_TEST_SAME_NUMBERS_H
#define AV_TEST_SAME_NUMBERS_H

static void assert_same_numbers(const struct av_session *a, const struct av_session *b)
{
	const struct av_trace *x = &a->trace, *y = &b->trace;
	size_t hnm = (size_t)x->heads * (size_t)x->n * (size_t)x->m;
	size_t nd = (size_t)x->n * (size_t)x->d_model;

	assert_int_equal(x->n, y->n);
	assert_int_equal(x->m, y->m);
	assert_int_equal(x->heads, y->heads);
	assert_int_equal(x->d_model, y->d_model);
	assert_memory_equal(x->scores, y->scores, hnm * sizeof(float));
	assert_memory_equal(x->masked, y->masked, hnm * sizeof(float));
	assert_memory_equal(x->weights, y->weights, hnm * sizeof(float));
	assert_memory_equal(x->output, y->output, nd * sizeof(float));
	assert_memory_equal(x->residual, y->residual, nd * sizeof(float));
}

#endif
