// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the write path of the usermode helper capability bounds
 *
 * Throws random, malformed, split, repeated, offset and over-long writes at
 * all 18 bound files (global and per purpose, bset and inheritable), from
 * root and from callers without CAP_SETPCAP or CAP_SYS_MODULE or in a
 * child user namespace.  After every write it reads the file back and
 * checks:
 *
 *  - no bit ever comes back once cleared (over the whole run);
 *  - a failed write fails with EINVAL or EPERM, nothing else;
 *  - a write by a caller without the capabilities changes nothing;
 *  - no other bound file changes;
 *  - the result is exactly what a model of the kernel's parser
 *    (proc_doulongvec_minmax() under the umh_caps handler) predicts.
 *
 * Seeded from $UMH_FUZZ_SEED, else from the time; the seed is printed.
 * $UMH_FUZZ_OPS overrides the number of root operations.
 *
 * Narrows the bounds of the running kernel for good: run it in a boot of
 * its own, as root.
 *
 * Built with -DUMH_FAULT=1..4 it fakes a kernel that breaks one rule (a
 * bit comes back, an odd errno, a capability-less write that changes a
 * bound, a parser unlike the model), to show that its check fires.  With
 * -DUMH_FAULT=5 the model is that of the kernel before writes were taken
 * whole (writes at an offset ignored, long ones parsed in part): it must
 * disagree with the kernel.
 */

#include "stress.h"

#define PARSE_MAX	4095		/* PAGE_SIZE - 1 */
#define BUF_MAX		5200
#define MAX_REPORTS	30

/* Root operations, and those of each capability-less test. */
#define OPS_PRIV	300000
#define OPS_UNPRIV	6000
/* Root forks a capability-less burst every BURST_EVERY operations. */
#define BURST_EVERY	4000
#define BURST_OPS	400

enum caller { PRIV, NO_SETPCAP, NO_SYS_MODULE, NO_BOTH, USERNS };

static const char * const caller_names[] = {
	"root", "no CAP_SETPCAP", "no CAP_SYS_MODULE",
	"no CAP_SETPCAP+CAP_SYS_MODULE", "child userns",
};

/* Survives from one test to the next (each runs in a child). */
static struct run_state {
	uint64_t seed;
	int known_valid;
	unsigned long long known[NKNOB];
	unsigned long ops, accepted, einval, eperm, skipped, bursts;
	unsigned int reports;
} *rs;

struct fuzz {
	struct rng rng;
	enum caller who;
	int rfd[NKNOB];		/* O_RDWR: reads, pwrite() */
	int wfd[NKNOB];		/* O_WRONLY: write() sequences */
	unsigned long long cur[NKNOB];
	unsigned long ops, failures, target;
	/* Root lets few writes clear bits, so the bounds last the run. */
	unsigned int clear_permille;
	int endgame;
};

/* Returns whether it printed: the number of reports is bounded. */
static int report(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	f->failures++;
	/* A budget shared by all processes of the run. */
	if (__atomic_fetch_add(&rs->reports, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return 0;
	fprintf(stderr, "# FAIL (%s, op %lu): ", caller_names[f->who], f->ops);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static void dump_input(const unsigned char *buf, size_t len, off_t pos)
{
	size_t i;

	fprintf(stderr, "#   input: len %zu pos %lld: \"", len, (long long)pos);
	for (i = 0; i < len && i < 64; i++) {
		if (buf[i] >= 0x20 && buf[i] < 0x7f && buf[i] != '"' &&
		    buf[i] != '\\')
			fputc(buf[i], stderr);
		else
			fprintf(stderr, "\\x%02x", buf[i]);
	}
	fprintf(stderr, "%s\"\n", len > 64 ? "..." : "");
}

/*
 * The model: what the kernel does with a write, independently of it.
 */

/* The kernel's isspace(): \t \n \v \f \r, space and Latin-1 NBSP. */
static int k_isspace(unsigned char c)
{
#if defined(UMH_FAULT) && UMH_FAULT == 4
	/* Fake: a model that is wrong about NBSP. */
	if (c == 0xa0)
		return 0;
#endif
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static int k_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int k_isxdigit(unsigned char c)
{
	return k_isdigit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static void k_skip_spaces(const unsigned char **p, size_t *left)
{
	while (*left && k_isspace(**p)) {
		(*p)++;
		(*left)--;
	}
}

/* proc_get_long() with strtoul_lenient() and the separators " \t\n". */
static int k_get_long(const unsigned char **buf, size_t *size,
		      unsigned long long *val)
{
	unsigned char tmp[22], *p;
	unsigned long long res = 0;
	size_t len = *size;
	unsigned int base;
	int neg = 0, ovf = 0;

	if (!len)
		return -EINVAL;
	if (len > sizeof(tmp) - 1)
		len = sizeof(tmp) - 1;
	memcpy(tmp, *buf, len);
	tmp[len] = '\0';
	p = tmp;
	if (*p == '-' && *size > 1) {
		neg = 1;
		p++;
	}
	if (!k_isdigit(*p))
		return -EINVAL;
	if (p[0] == '0')
		base = (p[1] | 0x20) == 'x' && k_isxdigit(p[2]) ? 16 : 8;
	else
		base = 10;
	if (base == 16)
		p += 2;
	for (;; p++) {
		unsigned int c = *p, lc = c | 0x20, d;

		if (k_isdigit(c))
			d = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			d = lc - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (res > (~0ULL - d) / base)
			ovf = 1;
		res = res * base + d;
	}
	if (ovf || neg)
		return -EINVAL;
	len = p - tmp;
	if (len == sizeof(tmp) - 1)
		return -EINVAL;
	if (len < *size && *p != ' ' && *p != '\t' && *p != '\n')
		return -EINVAL;
	*buf += len;
	*size -= len;
	*val = res;
	return 0;
}

struct expect {
	int err;			/* 0 or the errno */
	unsigned long long val;		/* the bound afterwards */
};

/* A write of @buf at file position @pos to a bound holding @old. */
static struct expect model(enum caller who, const unsigned char *buf,
			   size_t len, off_t pos, unsigned long long old)
{
	struct expect e = { .err = EINVAL, .val = old };
	const unsigned char *p = buf;
	unsigned long long w[2];
	size_t left;
	int nw = 0;

	if (who != PRIV) {
		e.err = EPERM;
		return e;
	}
#if defined(UMH_FAULT) && UMH_FAULT == 5
	/*
	 * Fake: the kernel before writes were taken whole, which ignored a
	 * write at an offset and parsed only the first page of a long one.
	 */
	if (!len || pos) {
		e.err = 0;
		return e;
	}
	left = len < PARSE_MAX ? len : PARSE_MAX;
#else
	/*
	 * Whole or not at all: at an offset (even of nothing), or a page or
	 * more, refused.
	 */
	if (pos || len > PARSE_MAX)
		return e;
	/* Nothing to parse. */
	if (!len) {
		e.err = 0;
		return e;
	}
	left = len;
#endif
	while (left && nw < 2) {
		k_skip_spaces(&p, &left);
		if (!left)
			break;
		if (k_get_long(&p, &left, &w[nw]) || w[nw] > 0xffffffffULL)
			return e;
		nw++;
	}
	k_skip_spaces(&p, &left);
	/* No word, or a third one: refused whole. */
	if (!nw || left)
		return e;
	e.err = 0;
	e.val = (old & 0xffffffffULL & w[0]) |
		((old >> 32) & (nw == 2 ? w[1] : ~0ULL)) << 32;
	return e;
}

/*
 * Input generators
 */

static const char spaces_any[] = " \t\n\r\v\f\xa0";
static const char spaces_sep[] = " \t\n";
static const char alphabet[] =
	"0123456789012345678901234567890123456789"
	"    \t\t\n\nxxX--abcdefABCDEF\r\v\f";

static unsigned char rnd_char(struct rng *r)
{
	unsigned int n = rnd_below(r, 100);

	if (n < 88)
		return alphabet[rnd_below(r, sizeof(alphabet) - 1)];
	if (n < 91)
		return 0xa0;
	if (n < 93)
		return 0;
	return rnd(r) & 0xff;
}

static size_t put_spaces(struct rng *r, char *out, int max, int sep_first)
{
	int n = rnd_below(r, max + 1), i;

	if (sep_first && !n)
		n = 1;
	for (i = 0; i < n; i++) {
		if (i == 0 && sep_first)
			out[i] = spaces_sep[rnd_below(r, 3)];
		else if (rnd_pct(r, 80))
			out[i] = spaces_sep[rnd_below(r, 3)];
		else
			out[i] = spaces_any[rnd_below(r, sizeof(spaces_any) - 1)];
	}
	return n;
}

static size_t put_word(struct rng *r, char *out, uint32_t v)
{
	switch (rnd_below(r, 10)) {
	case 0 ... 5:
		return sprintf(out, "%u", v);
	case 6:
		return sprintf(out, "0x%x", v);
	case 7:
		return sprintf(out, rnd_pct(r, 50) ? "0X%X" : "0x%08x", v);
	case 8:
		return sprintf(out, "0%o", v);
	default:
		return sprintf(out, "%.*s0%o", (int)rnd_below(r, 4),
			       "000", v);
	}
}

/* A well-formed write that keeps most of @old; returns the length. */
static size_t gen_valid(struct fuzz *f, char *out, unsigned long long old)
{
	struct rng *r = &f->rng;
	unsigned long long v = rnd_pct(r, 50) ? CAPS_FULL : old;
	uint32_t hi;
	size_t n = 0;

	/* Bits already gone may be named again: harmless. */
	if (rnd_pct(r, 50))
		v |= rnd(r) & CAPS_FULL & ~old;
	/* Clearing is rare, so the bounds last for the whole run. */
	if (rnd_below(r, 1000) < (f->endgame ? 300 : f->clear_permille))
		v &= ~(1ULL << rnd_below(r, CAP_LAST_CAP + 1));
	hi = v >> 32;
	/* Bits above CAP_LAST_CAP mean nothing, but are allowed. */
	if (rnd_pct(r, 30))
		hi |= (uint32_t)rnd(r) & ~(uint32_t)(CAPS_FULL >> 32);

	n += put_spaces(r, out + n, 2, 0);
	n += put_word(r, out + n, (uint32_t)v);
	if (rnd_pct(r, 75) || (v >> 32) != (CAPS_FULL >> 32)) {
		n += put_spaces(r, out + n, 3, 1);
		n += put_word(r, out + n, hi);
	}
	if (rnd_pct(r, 70))
		n += put_spaces(r, out + n, 3, 1);
	return n;
}

static const char * const invalid_inputs[] = {
	"-1", "-0", "- 1", "1 -1", "-4294967295 511", "1 2 3", "0 0 0\n",
	"4294967295 511 0", "4294967296", "4294967296 0", "0 4294967296",
	"0x100000000", "18446744073709551615 1", "99999999999999999999",
	"0000000000000000000001", "000000000000000000001", "", " ", "\n",
	"\t\n \v\f\r", "abc", "0x", "0xg", "08", "09 1", "1,2", "1\r", "1\v2",
	"1.0", "+1", "1e3", "0b101", "x1", "\xa0", "1 2\n\n3", "1\xa0",
	"0xffffffff\t0x1ff junk", "4294967295 511\r",
};

static size_t gen_invalid(struct fuzz *f, char *out)
{
	const char *s = invalid_inputs[rnd_below(&f->rng,
					ARRAY_SIZE(invalid_inputs))];

	strcpy(out, s);
	return strlen(s);
}

static size_t gen_random(struct fuzz *f, unsigned char *out, int biased)
{
	struct rng *r = &f->rng;
	size_t n, i;

	if (rnd_pct(r, 4))
		n = rnd_below(r, 5001);
	else
		n = rnd_below(r, 41);
	for (i = 0; i < n; i++)
		out[i] = biased ? rnd_char(r) : rnd(r) & 0xff;
	return n;
}

static size_t gen_mutant(struct fuzz *f, unsigned char *out,
			 unsigned long long old)
{
	struct rng *r = &f->rng;
	size_t n = gen_valid(f, (char *)out, old), pos;
	int i, m = 1 + rnd_below(r, 3);

	for (i = 0; i < m; i++) {
		pos = rnd_below(r, n + 1);
		switch (rnd_below(r, 3)) {
		case 0:		/* replace */
			if (pos < n)
				out[pos] = rnd_char(r);
			break;
		case 1:		/* insert */
			memmove(out + pos + 1, out + pos, n - pos);
			out[pos] = rnd_char(r);
			n++;
			break;
		default:	/* delete */
			if (pos < n) {
				memmove(out + pos, out + pos + 1, n - pos - 1);
				n--;
			}
		}
	}
	return n;
}

/* Around the PAGE_SIZE - 1 bytes the kernel parses. */
static size_t gen_long(struct fuzz *f, unsigned char *out,
		       unsigned long long old)
{
	struct rng *r = &f->rng;
	size_t n = gen_valid(f, (char *)out, old), total, i;

	total = PARSE_MAX - 24 + rnd_below(r, 48);
	if (rnd_pct(r, 30))
		total = PARSE_MAX + rnd_below(r, BUF_MAX - PARSE_MAX);
	if (rnd_pct(r, 30) && total > n + 8) {
		/* The value at the end, maybe across the limit. */
		memmove(out + total - n, out, n);
		for (i = 0; i < total - n; i++)
			out[i] = spaces_sep[rnd_below(r, 3)];
		return total;
	}
	for (i = n; i < total; i++)
		out[i] = rnd_pct(r, 97) ? spaces_sep[rnd_below(r, 3)] :
					  rnd_char(r);
	/* Junk beyond the parsed part is never seen. */
	if (total > PARSE_MAX && rnd_pct(r, 50))
		for (i = PARSE_MAX; i < total; i++)
			out[i] = rnd_char(r);
	return total;
}

static size_t gen_input(struct fuzz *f, unsigned char *buf,
			unsigned long long old)
{
	struct rng *r = &f->rng;
	unsigned int kind = rnd_below(r, 100);

	/* A caller without the capabilities tries to clear everything. */
	if (f->who != PRIV && kind < 15)
		return sprintf((char *)buf, "%s", rnd_pct(r, 50) ? "0 0" : "0");
	if (kind < 35)
		return gen_valid(f, (char *)buf, old);
	if (kind < 47)
		return gen_invalid(f, (char *)buf);
	if (kind < 72)
		return gen_random(f, buf, 1);
	if (kind < 87)
		return gen_mutant(f, buf, old);
	if (kind < 95)
		return gen_random(f, buf, 0);
	return gen_long(f, buf, old);
}

/*
 * Operations
 */

static int read_back(struct fuzz *f, int k, unsigned long long *val)
{
	char text[128];
	int err = pread_bound(f->rfd[k], val, text, sizeof(text));

	if (err)
		report(f, "reading %s: %s (\"%.40s\")", knob_name(k),
		       strerror(-err), err == -EINVAL || err == -ERANGE ?
		       text : "");
	return err;
}

/*
 * One write of @buf to knob @k through @fd at @pos (-1: write(), the model
 * position being *@fpos), then every check.  Returns the write's result.
 */
static ssize_t one_write(struct fuzz *f, int k, int fd, off_t pos,
			 off_t *fpos, const unsigned char *buf, size_t len)
{
	unsigned long long old = f->cur[k], now;
	off_t mpos = pos >= 0 ? pos : *fpos;
	struct expect e = model(f->who, buf, len, mpos, old);
	int err = 0;
	ssize_t r;

	errno = 0;
	r = pos >= 0 ? pwrite(fd, buf, len, pos) : write(fd, buf, len);
	if (r < 0)
		err = errno;
#if defined(UMH_FAULT) && UMH_FAULT == 2
	/* Fake: a clean write failing with an errno outside the set. */
	if (f->who == PRIV && f->ops == 5000) {
		r = -1;
		err = EIO;
	}
#endif
	f->ops++;
	if (read_back(f, k, &now))
		now = old;
#if defined(UMH_FAULT) && UMH_FAULT == 1
	/* Fake: a cleared bit reappears. */
	if (f->who == PRIV && f->ops > 5000 && (CAPS_FULL & ~now))
		now |= 1ULL << __builtin_ctzll(CAPS_FULL & ~now);
#endif
#if defined(UMH_FAULT) && UMH_FAULT == 3
	/* Fake: a capability-less write clears a bit. */
	if (f->who != PRIV && now)
		now &= now - 1;
#endif

	if (r < 0 && err != EINVAL && err != EPERM) {
		if (report(f, "write to %s failed with %s, not EINVAL or EPERM",
		       knob_name(k), strerror(err)))
			dump_input(buf, len, mpos);
	}
	if (now & ~old) {
		if (report(f, "%s: bits came back: %#llx, then %#llx",
		       knob_name(k), old, now))
			dump_input(buf, len, mpos);
	}
	if (f->who != PRIV && now != old) {
		if (report(f, "%s: a write without the capabilities changed it: %#llx, then %#llx",
		       knob_name(k), old, now))
			dump_input(buf, len, mpos);
	}
	if (e.err ? r != -1 || err != e.err : r != (ssize_t)len) {
		if (report(f, "%s: write returned %zd (%s), the model expects %zd (%s)",
		       knob_name(k), r, r < 0 ? strerror(err) : "ok",
		       e.err ? (ssize_t)-1 : (ssize_t)len,
		       e.err ? strerror(e.err) : "ok"))
			dump_input(buf, len, mpos);
	} else if (now != e.val) {
		if (report(f, "%s: %#llx after the write, the model expects %#llx (was %#llx)",
		       knob_name(k), now, e.val, old))
			dump_input(buf, len, mpos);
	}

	if (r >= 0) {
		rs->accepted++;
		if (fpos)
			*fpos += r;
	} else if (err == EINVAL) {
		rs->einval++;
	} else if (err == EPERM) {
		rs->eperm++;
	}
	f->cur[k] = now;
	return r;
}

/* Every other bound must be as the last write left it. */
static void check_all(struct fuzz *f)
{
	unsigned long long v;
	int k;

	for (k = 0; k < NKNOB; k++) {
		if (read_back(f, k, &v))
			continue;
		if (v != f->cur[k])
			report(f, "%s changed behind the writer's back: %#llx, then %#llx",
			       knob_name(k), f->cur[k], v);
		f->cur[k] = v;
	}
}

/* Would root's write clear much?  Then mostly do not make it. */
static int too_destructive(struct fuzz *f, int k, const unsigned char *buf,
			   size_t len)
{
	struct expect e = model(PRIV, buf, len, 0, f->cur[k]);
	int cleared = __builtin_popcountll(f->cur[k] & ~e.val);

	if (f->who != PRIV || e.err || !cleared || f->endgame)
		return 0;
	return cleared > 2 || !rnd_pct(&f->rng, 25);
}

static void one_op(struct fuzz *f)
{
	static unsigned char buf[BUF_MAX + 64];
	struct rng *r = &f->rng;
	int k = rnd_below(r, NKNOB), i, fd, n;
	size_t len, cut[5];
	off_t fpos = 0;

	do {
		len = gen_input(f, buf, f->cur[k]);
	} while (too_destructive(f, k, buf, len) && (rs->skipped++, 1));

	switch (rnd_below(r, 100)) {
	case 0 ... 54:		/* pwrite() at offset 0 */
		one_write(f, k, f->rfd[k], 0, NULL, buf, len);
		break;
	case 55 ... 64:		/* a fresh open file */
		if (f->who == USERNS) {
			one_write(f, k, f->rfd[k], 0, NULL, buf, len);
			break;
		}
		{
			char path[PATH_MAX];

			knob_path(path, sizeof(path), k);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			/*
			 * Opening a bound for writing needs what writing it
			 * needs: a caller short of a capability is refused
			 * there already, and cannot hand the descriptor on.
			 */
			if (f->who != PRIV) {
				if (fd >= 0 || errno != EPERM)
					report(f, "open %s for writing: %s, not EPERM",
					       path, fd >= 0 ? "opened" :
					       strerror(errno));
				if (fd >= 0)
					close(fd);
				break;
			}
			if (fd < 0) {
				report(f, "open %s: %s", path, strerror(errno));
				break;
			}
			one_write(f, k, fd, -1, &fpos, buf, len);
			close(fd);
		}
		break;
	case 65 ... 72:		/* at a nonzero offset: refused */
		one_write(f, k, f->rfd[k], 1 + rnd_below(r, 8000), NULL,
			  buf, len);
		break;
	case 73 ... 87:		/* one value over several write()s */
		fd = f->wfd[k];
		if (lseek(fd, 0, SEEK_SET)) {
			report(f, "lseek %s: %s", knob_name(k), strerror(errno));
			break;
		}
		n = 2 + rnd_below(r, 3);
		cut[0] = 0;
		for (i = 1; i < n; i++)
			cut[i] = rnd_below(r, len + 1);
		cut[n] = len;
		/* sort the cuts */
		for (i = 1; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (cut[j] < cut[i]) {
					size_t t = cut[i];

					cut[i] = cut[j];
					cut[j] = t;
				}
		for (i = 0; i < n; i++) {
			/*
			 * A piece that parses alone must not collapse the
			 * bound either; later pieces are refused anyway.
			 */
			if (!fpos && too_destructive(f, k, buf + cut[i],
						     cut[i + 1] - cut[i])) {
				rs->skipped++;
				break;
			}
			one_write(f, k, fd, -1, &fpos, buf + cut[i],
				  cut[i + 1] - cut[i]);
		}
		break;
	default:		/* the same write again, maybe rewound */
		fd = f->wfd[k];
		if (lseek(fd, 0, SEEK_SET)) {
			report(f, "lseek %s: %s", knob_name(k), strerror(errno));
			break;
		}
		n = 2 + rnd_below(r, 2);
		for (i = 0; i < n; i++) {
			if (i && rnd_pct(r, 40)) {
				if (lseek(fd, 0, SEEK_SET)) {
					report(f, "lseek: %s", strerror(errno));
					break;
				}
				fpos = 0;
			}
			if (!fpos && too_destructive(f, k, buf, len)) {
				rs->skipped++;
				break;
			}
			one_write(f, k, fd, -1, &fpos, buf, len);
		}
	}
	if (f->ops % 32 == 0)
		check_all(f);
}

/*
 * Setup and the tests
 */

static void __attribute__((constructor)) fuzz_init(void)
{
	rs = shared_alloc(sizeof(*rs));
	if (!rs) {
		perror("mmap");
		exit(KSFT_FAIL);
	}
	rs->seed = pick_seed("UMH_FUZZ_SEED");
}

static int fuzz_open(struct fuzz *f, enum caller who, uint64_t stream)
{
	char path[PATH_MAX];
	int k;

	memset(f, 0, sizeof(*f));
	f->who = who;
	rng_seed(&f->rng, rs->seed ^ stream * 0x100000001b3ULL);
	for (k = 0; k < NKNOB; k++) {
		knob_path(path, sizeof(path), k);
		f->rfd[k] = open(path, O_RDWR | O_CLOEXEC);
		f->wfd[k] = open(path, O_WRONLY | O_CLOEXEC);
		if (f->rfd[k] < 0 || f->wfd[k] < 0)
			return -errno;
		if (read_back(f, k, &f->cur[k]))
			return -EINVAL;
		if (rs->known_valid && (f->cur[k] & ~rs->known[k]))
			report(f, "%s: bits came back between tests: %#llx, then %#llx",
			       knob_name(k), rs->known[k], f->cur[k]);
	}
	return 0;
}

static void fuzz_close(struct fuzz *f)
{
	int k;

	check_all(f);
	for (k = 0; k < NKNOB; k++) {
		rs->known[k] = f->cur[k];
		close(f->rfd[k]);
		close(f->wfd[k]);
	}
	rs->known_valid = 1;
	rs->ops += f->ops;
}

/* Become a caller of kind @who; 0, or -errno (-EOPNOTSUPP: not here). */
static int become(enum caller who)
{
	switch (who) {
	case NO_SETPCAP:
		return drop_effective(CAP_SETPCAP);
	case NO_SYS_MODULE:
		return drop_effective(CAP_SYS_MODULE);
	case NO_BOTH:
		return drop_effective(CAP_SETPCAP) ?:
		       drop_effective(CAP_SYS_MODULE);
	case USERNS:
		if (unshare(CLONE_NEWUSER))
			return errno == EINVAL ? -EOPNOTSUPP : -errno;
		return 0;
	default:
		return 0;
	}
}

static int bits_left(struct fuzz *f)
{
	int k, n = 0;

	for (k = 0; k < NKNOB; k++)
		n += __builtin_popcountll(f->cur[k]);
	return n;
}

static void run_ops(struct fuzz *f, unsigned long n)
{
	unsigned long end = f->ops + n;

	while (f->ops < end)
		one_op(f);
}

FIXTURE(fuzz) {
	struct fuzz f;
};

FIXTURE_SETUP(fuzz)
{
	if (!rs->known_valid && !rs->ops) {
		ksft_print_msg("UMH_FUZZ_SEED=%#llx\n",
			       (unsigned long long)rs->seed);
		fflush(stdout);
	}
}

FIXTURE_TEARDOWN(fuzz)
{
}

static void unpriv_test(struct __test_metadata *_metadata,
			struct fuzz *f, enum caller who)
{
	int err;

	ASSERT_EQ(0, fuzz_open(f, who, who));
	err = become(who);
	if (err == -EOPNOTSUPP)
		SKIP(return, "no user namespaces");
	ASSERT_EQ(0, err);
	run_ops(f, OPS_UNPRIV);
	fuzz_close(f);
	ksft_print_msg("%s: %lu operations\n", caller_names[who], f->ops);
	fflush(stdout);
	EXPECT_EQ(0, f->failures);
}

TEST_F_TIMEOUT(fuzz, no_setpcap, 120)
{
	unpriv_test(_metadata, &self->f, NO_SETPCAP);
}

TEST_F_TIMEOUT(fuzz, no_sys_module, 120)
{
	unpriv_test(_metadata, &self->f, NO_SYS_MODULE);
}

TEST_F_TIMEOUT(fuzz, userns, 120)
{
	unpriv_test(_metadata, &self->f, USERNS);
}

/*
 * Root's writes, with bursts of capability-less writes forked in between;
 * the last tenth may clear bits freely, down to nothing.
 */
TEST_F_TIMEOUT(fuzz, root, 300)
{
	struct fuzz *f = &self->f;
	const char *env = getenv("UMH_FUZZ_OPS");
	unsigned long total = env ? strtoul(env, NULL, 0) : OPS_PRIV;
	unsigned long burst_ops = 0;
	double start = now_s();
	int status, burst = 0;
	pid_t pid;

	ASSERT_EQ(0, fuzz_open(f, PRIV, 0));
	/* About 400 clearing writes before the endgame, over 738 bits. */
	f->clear_permille = 1 + 400 * 1000 / (total * 35 / 100 + 1);
	while (f->ops < total) {
		if (f->ops >= total - total / 10 && !f->endgame) {
			f->endgame = 1;
			ksft_print_msg("before the endgame, at %lu operations: %d of %d bits left\n",
				       f->ops, bits_left(f), NKNOB * (CAP_LAST_CAP + 1));
		}
		run_ops(f, BURST_EVERY);
		if (f->ops >= total)
			break;

		/* A capability-less burst in a child, on the same files. */
		enum caller who = NO_SETPCAP + burst++ % 4;

		fflush(stdout);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			int err = become(who);

			if (err == -EOPNOTSUPP)
				_exit(0);
			if (err)
				_exit(255);
			f->who = who;
			rng_seed(&f->rng, rs->seed ^ (0x5eedULL + burst));
			f->ops = 0;
			f->failures = 0;
			run_ops(f, BURST_OPS);
			rs->ops += f->ops;
			_exit(f->failures > 254 ? 254 : f->failures);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("burst %d (%s): status %#x", burst,
			       caller_names[who], status);
		}
		rs->bursts++;
		burst_ops += BURST_OPS;
		/* Nothing the burst did may show. */
		check_all(f);
	}
	fuzz_close(f);
	ksft_print_msg("root: %lu operations, %lu capability-less in %d bursts, %.1f s\n",
		       f->ops, burst_ops, burst, now_s() - start);
	ksft_print_msg("total: %lu operations (%lu accepted, %lu EINVAL, %lu EPERM), %lu destructive inputs not sent\n",
		       rs->ops, rs->accepted, rs->einval, rs->eperm,
		       rs->skipped);
	ksft_print_msg("left: global bset %#llx inheritable %#llx\n",
		       f->cur[0], f->cur[1]);
	fflush(stdout);
	EXPECT_EQ(0, f->failures);
}

TEST_HARNESS_MAIN
