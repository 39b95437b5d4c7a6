/*
 * DPDK's Toeplitz hashes timed on the same inputs as the model's criterion bench
 * (model/benches/model.rs, group `toeplitz`), for `make bench-dpdk`.
 *
 * Prints one line per case, `<case> <ns per hash>` or `<case> unsupported <why>`, after checking
 * each DPDK path against a row of the public RSS verification suite so that a wrong call cannot
 * be timed. Built with -march=native as DPDK's own perf tests are: DPDK compiles its GFNI path
 * only where the compiler may use GFNI and AVX-512.
 */
#define ALLOW_EXPERIMENTAL_API 1
#include <rte_byteorder.h>
#include <rte_thash.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Tuples per bulk call, as in the model's bench. */
#define BULK 64
/* Timed samples per case; the median is printed. */
#define SAMPLES 15
/* Target length of one sample. */
#define SAMPLE_NS 40e6

static const uint8_t key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Verification suite, IPv4 row 1 with ports: 66.9.149.187:2794 -> 161.142.100.80:1766. */
static const uint8_t check_v4[12] = { 66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6 };
static const uint32_t check_v4_hash = 0x51ccc178;

static uint8_t inputs[BULK][36];
static uint32_t words_host[36 / 4];
static uint32_t key_be[40 / 4];
static uint64_t matrix[40];
static volatile uint32_t sink;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* The tuple as DPDK's software hashes take it: 32-bit words in host order. */
static void to_words(const uint8_t *bytes, int len)
{
	for (int i = 0; i < len / 4; i++) {
		uint32_t be;
		memcpy(&be, bytes + 4 * i, 4);
		words_host[i] = rte_be_to_cpu_32(be);
	}
}

enum form { SOFTRSS, SOFTRSS_BE, GFNI, GFNI_BULK };

/* Runs `calls` calls; returns the hashes per call. rte_softrss_be differs from rte_softrss
 * only in taking the key as rte_convert_rss_key leaves it. */
static int run(enum form f, int len, uint64_t calls)
{
	uint8_t *tuples[BULK];
	uint32_t out[BULK];
	uint32_t acc = 0;
	for (int t = 0; t < BULK; t++)
		tuples[t] = inputs[t];
	for (uint64_t c = 0; c < calls; c++) {
		switch (f) {
		case SOFTRSS:
			acc ^= rte_softrss(words_host, len / 4, key);
			break;
		case SOFTRSS_BE:
			acc ^= rte_softrss_be(words_host, len / 4, (const uint8_t *)key_be);
			break;
		case GFNI:
			acc ^= rte_thash_gfni(matrix, inputs[0], len);
			break;
		case GFNI_BULK:
			rte_thash_gfni_bulk(matrix, len, tuples, out, BULK);
			acc ^= out[BULK - 1];
			break;
		}
		/* Keep the compiler from hoisting the call out of the loop. */
		__asm__ volatile("" : "+r"(acc) : : "memory");
	}
	sink = acc;
	return f == GFNI_BULK ? BULK : 1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void time_case(const char *name, enum form f, int len)
{
	/* Calibrate one sample's length, then take the median of SAMPLES. */
	uint64_t calls = 1000;
	for (;;) {
		double t0 = now_ns();
		run(f, len, calls);
		double dt = now_ns() - t0;
		if (dt > SAMPLE_NS / 4)
			break;
		calls *= 2;
	}
	calls *= 4;
	double ns[SAMPLES];
	for (int s = 0; s < SAMPLES; s++) {
		double t0 = now_ns();
		int per = run(f, len, calls);
		ns[s] = (now_ns() - t0) / ((double)calls * per);
	}
	qsort(ns, SAMPLES, sizeof ns[0], cmp);
	printf("%s/%dB %.3f\n", name, len, ns[SAMPLES / 2]);
}

int main(void)
{
	for (int t = 0; t < BULK; t++)
		for (int i = 0; i < 36; i++)
			inputs[t][i] = (uint8_t)(t * 131 + i * 37 + 11);
	rte_convert_rss_key((const uint32_t *)key, key_be, sizeof key);

	/* Each path against the suite before it is timed. */
	to_words(check_v4, 12);
	uint32_t soft = rte_softrss(words_host, 3, key);
	uint32_t soft_be = rte_softrss_be(words_host, 3, (const uint8_t *)key_be);
	if (soft != check_v4_hash || soft_be != check_v4_hash) {
		fprintf(stderr, "thash: rte_softrss %#x, rte_softrss_be %#x, want %#x\n", soft,
			soft_be, check_v4_hash);
		return 1;
	}
	int gfni = rte_thash_gfni_supported();
#ifdef RTE_THASH_GFNI_DEFINED
	if (gfni) {
		rte_thash_complete_matrix(matrix, key, sizeof key);
		uint32_t g = rte_thash_gfni(matrix, check_v4, 12);
		if (g != check_v4_hash) {
			fprintf(stderr, "thash: rte_thash_gfni %#x, want %#x\n", g, check_v4_hash);
			return 1;
		}
	}
#else
	gfni = 0;
#endif

	for (int len = 12; len <= 36; len += 24) {
		to_words(inputs[0], len);
		time_case("softrss", SOFTRSS, len);
		time_case("softrss_be", SOFTRSS_BE, len);
		if (gfni) {
			time_case("gfni", GFNI, len);
			time_case("gfni-bulk", GFNI_BULK, len);
		} else {
			printf("gfni/%dB unsupported this CPU or compiler has no GFNI with AVX-512\n", len);
			printf("gfni-bulk/%dB unsupported this CPU or compiler has no GFNI with AVX-512\n",
			       len);
		}
	}
	return 0;
}
