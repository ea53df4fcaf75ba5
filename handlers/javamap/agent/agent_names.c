// SPDX-License-Identifier: MIT
/* JVM type signatures turned into the names a Java programmer reads. */
#include <string.h>

#include "agent.h"

struct strbuf {
	char *buf;
	size_t len, pos;
};

static void sb_putn(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, sb->pos++)
		if (sb->pos + 1 < sb->len)
			sb->buf[sb->pos] = s[i];
}

static void sb_puts(struct strbuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

/* "Lcom/example/Foo;" written as "com.example.Foo"; returns the rest. */
static const char *sb_class(struct strbuf *sb, const char *s)
{
	for (; *s && *s != ';'; s++)
		sb_putn(sb, *s == '/' ? "." : s, 1);
	return *s ? s + 1 : s;
}

/* One field type from a signature; returns the rest. */
static const char *sb_type(struct strbuf *sb, const char *s)
{
	static const char *const prim[] = {
		['B'] = "byte",	 ['C'] = "char",    ['D'] = "double",
		['F'] = "float", ['I'] = "int",	    ['J'] = "long",
		['S'] = "short", ['Z'] = "boolean", ['V'] = "void",
	};
	unsigned dims = 0;
	unsigned char c;

	while (*s == '[') {
		dims++;
		s++;
	}
	c = (unsigned char)*s;
	if (c == 'L')
		s = sb_class(sb, s + 1);
	else if (c && c < sizeof(prim) / sizeof(prim[0]) && prim[c]) {
		sb_puts(sb, prim[c]);
		s++;
	} else if (c) {
		/* not a signature we know: show it rather than guess */
		sb_putn(sb, s, 1);
		s++;
	}
	while (dims--)
		sb_puts(sb, "[]");
	return s;
}

size_t agent_name_format(char *buf, size_t len, const char *class_sig,
			 const char *name, const char *sig)
{
	struct strbuf sb = { buf, len, 0 };
	int first = 1;

	if (class_sig && class_sig[0] == 'L')
		sb_class(&sb, class_sig + 1);
	else if (class_sig)
		sb_type(&sb, class_sig);
	sb_puts(&sb, ".");
	sb_puts(&sb, name ? name : "?");
	sb_puts(&sb, "(");
	if (sig && *sig == '(') {
		sig++;
		while (*sig && *sig != ')') {
			if (!first)
				sb_puts(&sb, ", ");
			first = 0;
			sig = sb_type(&sb, sig);
		}
	}
	sb_puts(&sb, ")");
	if (len)
		buf[sb.pos < len ? sb.pos : len - 1] = '\0';
	return sb.pos;
}

size_t agent_source_format(char *buf, size_t len, const char *class_sig,
			   const char *source)
{
	struct strbuf sb = { buf, len, 0 };
	const char *slash = NULL;

	if (class_sig && class_sig[0] == 'L')
		slash = strrchr(class_sig, '/');
	if (slash)
		sb_putn(&sb, class_sig + 1, (size_t)(slash - class_sig));
	sb_puts(&sb, source);
	if (len)
		buf[sb.pos < len ? sb.pos : len - 1] = '\0';
	return sb.pos;
}

size_t agent_type_format(char *buf, size_t len, const char *sig)
{
	struct strbuf sb = { buf, len, 0 };

	if (sig)
		sb_type(&sb, sig);
	if (len)
		buf[sb.pos < len ? sb.pos : len - 1] = '\0';
	return sb.pos;
}
