// SPDX-License-Identifier: GPL-2.0
/*
 * paragraphs: the gate on the series' text that says each thing once.
 *
 *   paragraphs FILE...
 *
 * Each FILE is a patch as 'git format-patch' writes it, whose commit
 * message lies between the headers and the "---" line, or a plain text
 * (the cover letter's patches/cover-letter.txt), read whole.  A paragraph
 * is a run of non-blank lines, or an item of a list ("- ", "* ", "1. ");
 * two are the same when their words are,
 * whatever the wrapping.  Every paragraph of 60 characters or more that
 * stands twice, in one text or in two, fails the text it stands in the
 * second time, and the line says where it stood first: a maintainer reads
 * the messages of a series in order, and the first one is where it is
 * said.  Trailers (Signed-off-by: and their kin) and shorter paragraphs
 * ("No functional change.") may repeat.
 *
 * Prints KTAP, one result per FILE; exits 0 if every result is ok, 1 if
 * one is not, 2 on a usage or read error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shorter paragraphs may repeat. */
#define MIN_CHARS 60

struct para {
	char *words;		/* the paragraph, its whitespace one space each */
	int file;		/* index of the file it stands in */
	int line;		/* its first line there */
};

static struct para *paras;
static size_t npara, cap_para;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("paragraphs");
		exit(2);
	}
	return p;
}

/* A line of the form "Token-Name: value", as a trailer is. */
static bool trailer_line(const char *s)
{
	const char *p = s;

	if (!isupper((unsigned char)*p))
		return false;
	while (isalnum((unsigned char)*p) || *p == '-')
		p++;
	return p > s && p[0] == ':' && p[1] == ' ';
}

/* A line that starts an item of a list: "- ", "* " or "1. ", indented or not. */
static bool list_item(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if ((*s == '-' || *s == '*') && s[1] == ' ')
		return true;
	while (isdigit((unsigned char)*s))
		s++;
	return *s == '.' && s[1] == ' ' && isdigit((unsigned char)s[-1]);
}

static void add_para(char *buf, size_t len, bool all_trailers, int file,
		     int line)
{
	size_t n = 0;

	while (len && buf[len - 1] == ' ')
		len--;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)buf[i]))
			n++;
	if (all_trailers || n < MIN_CHARS)
		return;
	if (npara == cap_para) {
		cap_para = cap_para ? 2 * cap_para : 64;
		paras = xrealloc(paras, cap_para * sizeof(*paras));
	}
	paras[npara].words = strdup(buf);
	if (!paras[npara].words) {
		perror("paragraphs");
		exit(2);
	}
	paras[npara].file = file;
	paras[npara].line = line;
	npara++;
}

/*
 * Collect the paragraphs of @path's message: of a patch, what lies
 * between its headers and its "---" line; of any other file, all of it.
 */
static int read_file(const char *path, int file)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *buf = NULL;
	size_t linecap = 0, len = 0, bufcap = 0;
	bool patch = false, in_body, trailers = true;
	int lineno = 0, start = 0;
	ssize_t n;

	if (!f) {
		fprintf(stderr, "paragraphs: %s: %m\n", path);
		return -1;
	}
	in_body = true;
	while ((n = getline(&line, &linecap, f)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (lineno == 1 && !strncmp(line, "From ", 5)) {
			/* A patch: its message starts after the headers. */
			patch = true;
			in_body = false;
			continue;
		}
		if (!in_body) {
			if (!*line)
				in_body = true;
			continue;
		}
		if (patch && !strcmp(line, "---"))
			break;
		if (!*line) {
			if (len)
				add_para(buf, len, trailers, file, start);
			len = 0;
			trailers = true;
			continue;
		}
		/* An item of a list is a paragraph of its own. */
		if (len && list_item(line)) {
			add_para(buf, len, trailers, file, start);
			len = 0;
			trailers = true;
		}
		if (!len)
			start = lineno;
		trailers = trailers && trailer_line(line);
		/* Each run of whitespace becomes one space. */
		for (char *p = line; *p; p++) {
			bool sp = isspace((unsigned char)*p);

			if (sp && (!len || buf[len - 1] == ' '))
				continue;
			if (len + 2 > bufcap) {
				bufcap = bufcap ? 2 * bufcap : 256;
				buf = xrealloc(buf, bufcap);
			}
			buf[len++] = sp ? ' ' : *p;
		}
		if (len && buf[len - 1] != ' ') {
			if (len + 2 > bufcap) {
				bufcap = 2 * bufcap;
				buf = xrealloc(buf, bufcap);
			}
			buf[len++] = ' ';
		}
	}
	if (len)
		add_para(buf, len, trailers, file, start);
	if (ferror(f)) {
		fprintf(stderr, "paragraphs: %s: read error\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	free(line);
	free(buf);
	return 0;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: paragraphs FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (read_file(argv[i], i))
			return 2;

	printf("TAP version 13\n1..%d\n", argc - 1);
	for (int i = 1; i < argc; i++) {
		int repeats = 0;

		for (size_t k = 0; k < npara; k++) {
			if (paras[k].file != i)
				continue;
			for (size_t j = 0; j < k; j++) {
				if (strcmp(paras[j].words, paras[k].words))
					continue;
				printf("# %s:%d repeats %s:%d: \"%.70s...\"\n",
				       base(argv[i]), paras[k].line,
				       base(argv[paras[j].file]), paras[j].line,
				       paras[k].words);
				repeats++;
				break;
			}
		}
		printf("%sok %d %s says each paragraph once\n",
		       repeats ? "not " : "", i, base(argv[i]));
		if (repeats)
			failed = 1;
	}
	return failed;
}
