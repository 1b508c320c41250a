/*
 * tpchgen.c -- a TPC-H-style data generator for the anon_dp benchmarks.
 *
 * Writes the eight TPC-H tables (region, nation, supplier, customer, part,
 * partsupp, orders, lineitem) in PostgreSQL COPY text format with '|' as the
 * delimiter (no trailing delimiter), following the schema, cardinalities, key
 * relationships, value distributions and comment grammar of the TPC-H
 * specification (Clause 4.2).  It is not the official dbgen and does not
 * reproduce dbgen's output byte for byte; README.md lists the differences.
 *
 * Determinism: every row draws its random values from a generator seeded by
 * (--seed, table, row number), so a table's contents depend only on the seed
 * and the scale factor, never on which other tables are generated or in
 * which order.  The same seed and scale factor always give the same bytes.
 *
 *   tpchgen -s SF [--seed N] [-T tables] [-o DIR | -o -] [--lineitem-custkey]
 *
 * C99; no dependencies beyond the C library.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64 streams keyed by (seed, table, row).      */
/* ------------------------------------------------------------------ */

typedef struct
{
	uint64_t	state;
	uint64_t	bits;			/* spare random bits for cheap small draws */
	int			nbits;
} rng_t;

static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

enum stream
{
	S_REGION = 1, S_NATION, S_SUPPLIER, S_SUPPLIER_BBB, S_CUSTOMER, S_PART,
	S_PARTSUPP, S_ORDERS, S_TEXTPOOL
};

static uint64_t g_seed = 1;

static inline void
rng_init(rng_t *r, enum stream stream, uint64_t row)
{
	r->state = mix64(mix64(g_seed ^ (UINT64_C(0x5851f42d4c957f2d) * (uint64_t) stream))
					 + UINT64_C(0x9e3779b97f4a7c15) * (row + 1));
	r->nbits = 0;
	r->bits = 0;
}

static inline uint64_t
rng_next(rng_t *r)
{
	r->state += UINT64_C(0x9e3779b97f4a7c15);
	return mix64(r->state);
}

/* uniform integer in [lo, hi]; modulo bias is below 2^-40 for our ranges */
static inline int64_t
rng_range(rng_t *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t) (rng_next(r) % (uint64_t) (hi - lo + 1));
}

/* six random bits (0..63), taken from a buffered 64-bit draw */
static inline unsigned
rng_6bits(rng_t *r)
{
	unsigned	v;

	if (r->nbits < 6)
	{
		r->bits = rng_next(r);
		r->nbits = 60;
	}
	v = (unsigned) (r->bits & 63);
	r->bits >>= 6;
	r->nbits -= 6;
	return v;
}

/* ------------------------------------------------------------------ */
/* Buffered output.                                                     */
/* ------------------------------------------------------------------ */

#define OUT_CAP (1 << 20)
#define ROW_MAX 4096			/* no row is longer than this */

typedef struct
{
	FILE	   *f;
	const char *name;
	char	   *buf;
	size_t		len;
	long long	rows;
} out_t;

static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "tpchgen: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(1);
}

static void
out_flush(out_t *o)
{
	if (o->len > 0 && fwrite(o->buf, 1, o->len, o->f) != o->len)
		die("write failed", o->name);
	o->len = 0;
}

static inline void
out_row_begin(out_t *o)
{
	if (OUT_CAP - o->len < ROW_MAX)
		out_flush(o);
}

static inline void
out_row_end(out_t *o)
{
	o->buf[o->len++] = '\n';
	o->rows++;
}

static inline void
put_mem(out_t *o, const char *s, size_t n)
{
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void
put_str(out_t *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static inline void
put_sep(out_t *o)
{
	o->buf[o->len++] = '|';
}

static inline void
put_uint(out_t *o, uint64_t v)
{
	char		tmp[24];
	int			n = 0;

	do
	{
		tmp[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		o->buf[o->len++] = tmp[--n];
}

/* zero-padded to width digits */
static inline void
put_uint_pad(out_t *o, uint64_t v, int width)
{
	int			i;

	for (i = width - 1; i >= 0; i--)
	{
		o->buf[o->len + (size_t) i] = (char) ('0' + v % 10);
		v /= 10;
	}
	o->len += (size_t) width;
}

/* an amount in cents as d.dd */
static inline void
put_money(out_t *o, int64_t cents)
{
	uint64_t	a;

	if (cents < 0)
	{
		o->buf[o->len++] = '-';
		a = (uint64_t) (-cents);
	}
	else
		a = (uint64_t) cents;
	put_uint(o, a / 100);
	o->buf[o->len++] = '.';
	put_uint_pad(o, a % 100, 2);
}

/* ------------------------------------------------------------------ */
/* Dates: day 0 is 1992-01-01 (STARTDATE), the last is 1998-12-31.     */
/* ------------------------------------------------------------------ */

#define NDAYS 2557				/* 1992-01-01 .. 1998-12-31 */
static char g_date[NDAYS][11];
static int	g_currentdate;		/* 1995-06-17 */

static void
init_dates(void)
{
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int			y = 1992, m = 1, d = 1, i;

	for (i = 0; i < NDAYS; i++)
	{
		int			dim = mdays[m - 1] + (m == 2 && y % 4 == 0 ? 1 : 0);
		char	   *s = g_date[i];

		s[0] = (char) ('0' + y / 1000);
		s[1] = (char) ('0' + y / 100 % 10);
		s[2] = (char) ('0' + y / 10 % 10);
		s[3] = (char) ('0' + y % 10);
		s[4] = '-';
		s[5] = (char) ('0' + m / 10);
		s[6] = (char) ('0' + m % 10);
		s[7] = '-';
		s[8] = (char) ('0' + d / 10);
		s[9] = (char) ('0' + d % 10);
		s[10] = '\0';
		if (y == 1995 && m == 6 && d == 17)
			g_currentdate = i;
		if (++d > dim)
		{
			d = 1;
			if (++m > 12)
			{
				m = 1;
				y++;
			}
		}
	}
	if (strcmp(g_date[NDAYS - 1], "1998-12-31") != 0)
		die("internal error: date table", g_date[NDAYS - 1]);
}

static inline void
put_date(out_t *o, int day)
{
	put_mem(o, g_date[day], 10);
}

/* ------------------------------------------------------------------ */
/* Word lists of the specification (Clause 4.2.2.13) with their weights */
/* ------------------------------------------------------------------ */

typedef struct
{
	const char *word;
	int			weight;
} wword_t;

typedef struct
{
	const wword_t *words;
	int			n;
	int			total;
	unsigned char *pick;		/* pick[w] = index of the word for weight slot w */
	size_t	   *len;
} wlist_t;

static const wword_t NOUNS[] = {
	{"packages", 40}, {"requests", 40}, {"accounts", 40}, {"deposits", 40},
	{"foxes", 20}, {"ideas", 20}, {"theodolites", 20}, {"pinto beans", 20},
	{"instructions", 20}, {"dependencies", 10}, {"excuses", 10},
	{"platelets", 10}, {"asymptotes", 10}, {"courts", 5}, {"dolphins", 5},
	{"multipliers", 1}, {"sauternes", 1}, {"warthogs", 1}, {"frets", 1},
	{"dinos", 1}, {"attainments", 1}, {"somas", 1}, {"Tiresias", 1},
	{"patterns", 1}, {"forges", 1}, {"braids", 1}, {"frays", 1},
	{"warhorses", 1}, {"dugouts", 1}, {"notornis", 1}, {"epitaphs", 1},
	{"pearls", 1}, {"tithes", 1}, {"waters", 1}, {"orbits", 1}, {"gifts", 1},
	{"sheaves", 1}, {"depths", 1}, {"sentiments", 1}, {"decoys", 1},
	{"realms", 1}, {"pains", 1}, {"grouches", 1}, {"escapades", 1},
	{"hockey players", 1}
};

static const wword_t VERBS[] = {
	{"sleep", 20}, {"wake", 20}, {"are", 20}, {"cajole", 20}, {"haggle", 20},
	{"nag", 10}, {"use", 10}, {"boost", 10}, {"affix", 5}, {"detect", 5},
	{"integrate", 5}, {"maintain", 1}, {"nod", 1}, {"was", 1}, {"lose", 1},
	{"sublate", 1}, {"solve", 1}, {"thrash", 1}, {"promise", 1},
	{"engage", 1}, {"hinder", 1}, {"print", 1}, {"x-ray", 1}, {"breach", 1},
	{"eat", 1}, {"grow", 1}, {"impress", 1}, {"mold", 1}, {"poach", 1},
	{"serve", 1}, {"run", 1}, {"dazzle", 1}, {"snooze", 1}, {"doze", 1},
	{"unwind", 1}, {"kindle", 1}, {"play", 1}, {"hang", 1}, {"believe", 1},
	{"doubt", 1}
};

static const wword_t ADJECTIVES[] = {
	{"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20},
	{"furious", 1}, {"sly", 1}, {"careful", 1}, {"blithe", 1}, {"quick", 1},
	{"fluffy", 1}, {"slow", 1}, {"quiet", 1}, {"ruthless", 1}, {"thin", 1},
	{"close", 1}, {"dogged", 1}, {"daring", 1}, {"brave", 1},
	{"stealthy", 1}, {"permanent", 1}, {"enticing", 1}, {"idle", 1},
	{"busy", 1}, {"regular", 50}, {"final", 40}, {"ironic", 40},
	{"even", 30}, {"bold", 20}, {"silent", 10}
};

static const wword_t ADVERBS[] = {
	{"sometimes", 1}, {"always", 1}, {"never", 1}, {"furiously", 50},
	{"slyly", 50}, {"carefully", 50}, {"blithely", 40}, {"quickly", 30},
	{"fluffily", 20}, {"slowly", 1}, {"quietly", 1}, {"ruthlessly", 1},
	{"thinly", 1}, {"closely", 1}, {"doggedly", 1}, {"daringly", 1},
	{"bravely", 1}, {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
	{"idly", 1}, {"busily", 1}, {"regularly", 1}, {"finally", 1},
	{"ironically", 1}, {"evenly", 1}, {"boldly", 1}, {"silently", 1}
};

static const wword_t PREPOSITIONS[] = {
	{"about", 50}, {"above", 50}, {"according to", 50}, {"across", 50},
	{"after", 50}, {"against", 40}, {"along", 40}, {"alongside of", 30},
	{"among", 30}, {"around", 20}, {"at", 10}, {"atop", 1}, {"before", 1},
	{"behind", 1}, {"beneath", 1}, {"beside", 1}, {"besides", 1},
	{"between", 1}, {"beyond", 1}, {"by", 1}, {"despite", 1}, {"during", 1},
	{"except", 1}, {"for", 1}, {"from", 1}, {"in place of", 1},
	{"inside", 1}, {"instead of", 1}, {"into", 1}, {"near", 1}, {"of", 1},
	{"on", 1}, {"outside", 1}, {"over", 1}, {"past", 1}, {"since", 1},
	{"through", 1}, {"throughout", 1}, {"to", 1}, {"toward", 1},
	{"under", 1}, {"until", 1}, {"up", 1}, {"upon", 1}, {"without", 1},
	{"with", 1}, {"within", 1}
};

static const wword_t AUXILIARIES[] = {
	{"do", 1}, {"may", 1}, {"might", 1}, {"shall", 1}, {"will", 1},
	{"would", 1}, {"can", 1}, {"could", 1}, {"should", 1}, {"ought to", 1},
	{"must", 1}, {"will have to", 1}, {"shall have to", 1},
	{"could have to", 1}, {"should have to", 1}, {"must have to", 1},
	{"need to", 1}, {"try to", 1}
};

static const wword_t TERMINATORS[] = {
	{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}
};

/* sentence shapes: N noun phrase, V verb phrase, P prepositional phrase */
static const wword_t SENTENCES[] = {
	{"NV", 3}, {"NVP", 3}, {"NVN", 3}, {"NPVN", 1}, {"NPVP", 1}
};

/* noun phrases: N noun, J adjective, D adverb; ',' is a comma after J */
static const wword_t NOUN_PHRASES[] = {
	{"N", 10}, {"JN", 20}, {"J,JN", 10}, {"DJN", 50}
};

/* verb phrases: V verb, X auxiliary, D adverb */
static const wword_t VERB_PHRASES[] = {
	{"V", 30}, {"XV", 1}, {"VD", 40}, {"XVD", 1}
};

#define NWORDS(a) ((int) (sizeof(a) / sizeof((a)[0])))

static wlist_t L_NOUN, L_VERB, L_ADJ, L_ADV, L_PREP, L_AUX, L_TERM, L_SENT,
			L_NP, L_VP;

static void
wlist_init(wlist_t *l, const wword_t *words, int n)
{
	int			i,
				w,
				k = 0;

	l->words = words;
	l->n = n;
	l->total = 0;
	for (i = 0; i < n; i++)
		l->total += words[i].weight;
	l->pick = malloc((size_t) l->total);
	l->len = malloc(sizeof(size_t) * (size_t) n);
	if (!l->pick || !l->len)
		die("out of memory", NULL);
	for (i = 0; i < n; i++)
	{
		l->len[i] = strlen(words[i].word);
		for (w = 0; w < words[i].weight; w++)
			l->pick[k++] = (unsigned char) i;
	}
}

static inline int
wlist_draw(const wlist_t *l, rng_t *r)
{
	return l->pick[rng_next(r) % (uint64_t) l->total];
}

/* ------------------------------------------------------------------ */
/* The text pool: pseudo text from the grammar of Clause 4.2.2.14;      */
/* every comment is a substring of it at a random offset.               */
/* ------------------------------------------------------------------ */

#define POOL_SIZE (16 * 1024 * 1024)
static char *g_pool;
static size_t g_pool_len;

static void
pool_word(const wlist_t *l, rng_t *r)
{
	int			i = wlist_draw(l, r);

	memcpy(g_pool + g_pool_len, l->words[i].word, l->len[i]);
	g_pool_len += l->len[i];
}

static void
pool_space(void)
{
	g_pool[g_pool_len++] = ' ';
}

static void
pool_noun_phrase(rng_t *r)
{
	const char *shape = NOUN_PHRASES[wlist_draw(&L_NP, r)].word;
	const char *c;

	for (c = shape; *c; c++)
	{
		switch (*c)
		{
			case 'N':
				pool_word(&L_NOUN, r);
				break;
			case 'J':
				pool_word(&L_ADJ, r);
				break;
			case 'D':
				pool_word(&L_ADV, r);
				break;
			case ',':
				g_pool[g_pool_len++] = ',';
				break;
		}
		if (c[1] != '\0' && c[1] != ',')
			pool_space();
	}
}

static void
pool_verb_phrase(rng_t *r)
{
	const char *shape = VERB_PHRASES[wlist_draw(&L_VP, r)].word;
	const char *c;

	for (c = shape; *c; c++)
	{
		switch (*c)
		{
			case 'V':
				pool_word(&L_VERB, r);
				break;
			case 'X':
				pool_word(&L_AUX, r);
				break;
			case 'D':
				pool_word(&L_ADV, r);
				break;
		}
		if (c[1] != '\0')
			pool_space();
	}
}

static void
pool_prep_phrase(rng_t *r)
{
	pool_word(&L_PREP, r);
	memcpy(g_pool + g_pool_len, " the ", 5);
	g_pool_len += 5;
	pool_noun_phrase(r);
}

static void
build_text_pool(void)
{
	rng_t		r;

	rng_init(&r, S_TEXTPOOL, 0);
	g_pool = malloc(POOL_SIZE + 1024);
	if (!g_pool)
		die("out of memory", NULL);
	g_pool_len = 0;
	while (g_pool_len < POOL_SIZE)
	{
		const char *shape = SENTENCES[wlist_draw(&L_SENT, &r)].word;
		const char *c;

		for (c = shape; *c; c++)
		{
			if (c != shape)
				pool_space();
			switch (*c)
			{
				case 'N':
					pool_noun_phrase(&r);
					break;
				case 'V':
					pool_verb_phrase(&r);
					break;
				case 'P':
					pool_prep_phrase(&r);
					break;
			}
		}
		pool_word(&L_TERM, &r);
		pool_space();
	}
}

/* a comment: random length in [lo, hi], random offset in the pool */
static inline void
put_text(out_t *o, rng_t *r, int lo, int hi)
{
	size_t		n = (size_t) rng_range(r, lo, hi);
	size_t		off = (size_t) rng_range(r, 0, (int64_t) (g_pool_len - n));

	put_mem(o, g_pool + off, n);
}

/* random v-string of length in [lo, hi] from a 64-symbol alphabet */
static const char VSTRING_ALPHABET[65] =
"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";

static inline void
put_vstring(out_t *o, rng_t *r, int lo, int hi)
{
	int			n = (int) rng_range(r, lo, hi),
				i;

	for (i = 0; i < n; i++)
		o->buf[o->len++] = VSTRING_ALPHABET[rng_6bits(r)];
}

/* phone number of Clause 4.2.2.9: country code = nation key + 10 */
static inline void
put_phone(out_t *o, rng_t *r, int nationkey)
{
	put_uint_pad(o, (uint64_t) (nationkey + 10), 2);
	o->buf[o->len++] = '-';
	put_uint_pad(o, (uint64_t) rng_range(r, 100, 999), 3);
	o->buf[o->len++] = '-';
	put_uint_pad(o, (uint64_t) rng_range(r, 100, 999), 3);
	o->buf[o->len++] = '-';
	put_uint_pad(o, (uint64_t) rng_range(r, 1000, 9999), 4);
}

/* ------------------------------------------------------------------ */
/* Fixed lists of Clause 4.2.3 / 4.2.2.13.                              */
/* ------------------------------------------------------------------ */

static const char *const REGIONS[5] = {
	"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"
};

static const struct
{
	const char *name;
	int			region;
}			NATIONS[25] = {
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1},
	{"EGYPT", 4}, {"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3},
	{"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2},
	{"JORDAN", 4}, {"KENYA", 0}, {"MOROCCO", 0}, {"MOZAMBIQUE", 0},
	{"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3}, {"SAUDI ARABIA", 4},
	{"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3},
	{"UNITED STATES", 1}
};

static const char *const COLORS[] = {
	"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black",
	"blanched", "blue", "blush", "brown", "burlywood", "burnished",
	"chartreuse", "chiffon", "chocolate", "coral", "cornflower", "cornsilk",
	"cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick",
	"floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green",
	"grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace", "lavender",
	"lawn", "lemon", "light", "lime", "linen", "magenta", "maroon", "medium",
	"metallic", "midnight", "mint", "misty", "moccasin", "navajo", "navy",
	"olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink",
	"plum", "powder", "puff", "purple", "red", "rose", "rosy", "royal",
	"saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate",
	"smoke", "snow", "spring", "steel", "tan", "thistle", "tomato",
	"turquoise", "violet", "wheat", "white", "yellow"
};

static const char *const TYPE_S1[6] = {
	"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"
};
static const char *const TYPE_S2[5] = {
	"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"
};
static const char *const TYPE_S3[5] = {
	"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"
};
static const char *const CONTAINER_S1[5] = {
	"SM", "LG", "MED", "JUMBO", "WRAP"
};
static const char *const CONTAINER_S2[8] = {
	"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"
};
static const char *const SEGMENTS[5] = {
	"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"
};
static const char *const PRIORITIES[5] = {
	"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"
};
static const char *const INSTRUCTIONS[4] = {
	"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"
};
static const char *const MODES[7] = {
	"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"
};

/* ------------------------------------------------------------------ */
/* Scale.                                                               */
/* ------------------------------------------------------------------ */

static double g_sf;
static int64_t g_nsupp, g_ncust, g_npart, g_norders, g_nclerks;

static int64_t
scaled(double base)
{
	int64_t		n = (int64_t) (g_sf * base + 0.5);

	return n < 1 ? 1 : n;
}

/* P_RETAILPRICE of Clause 4.2.3, in cents */
static inline int64_t
retail_price_cents(int64_t partkey)
{
	return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

/* the i-th (0..3) supplier of a part: PS_SUPPKEY / L_SUPPKEY of 4.2.3 */
static inline int64_t
part_supplier(int64_t partkey, int64_t i)
{
	int64_t		s = g_nsupp;

	return (partkey + i * (s / 4 + (partkey - 1) / s)) % s + 1;
}

/* sparse order keys: of every 32 keys only the first 8 are used */
static inline int64_t
order_key(int64_t index)		/* index = 1 .. norders */
{
	return ((index - 1) / 8) * 32 + (index - 1) % 8 + 1;
}

/* ------------------------------------------------------------------ */
/* Tables.                                                              */
/* ------------------------------------------------------------------ */

static void
gen_region(out_t *o)
{
	int			i;
	rng_t		r;

	for (i = 0; i < 5; i++)
	{
		rng_init(&r, S_REGION, (uint64_t) i);
		out_row_begin(o);
		put_uint(o, (uint64_t) i);
		put_sep(o);
		put_str(o, REGIONS[i]);
		put_sep(o);
		put_text(o, &r, 31, 115);
		out_row_end(o);
	}
}

static void
gen_nation(out_t *o)
{
	int			i;
	rng_t		r;

	for (i = 0; i < 25; i++)
	{
		rng_init(&r, S_NATION, (uint64_t) i);
		out_row_begin(o);
		put_uint(o, (uint64_t) i);
		put_sep(o);
		put_str(o, NATIONS[i].name);
		put_sep(o);
		put_uint(o, (uint64_t) NATIONS[i].region);
		put_sep(o);
		put_text(o, &r, 31, 114);
		out_row_end(o);
	}
}

/*
 * Suppliers whose comment carries "Customer ... Complaints" (Q16) or
 * "Customer ... Recommends": round(SF * 5) of each (at least one), chosen
 * at random without repetition.  bbb[k] = 0 none, 1 complaints,
 * 2 recommends.
 */
static unsigned char *
choose_bbb_suppliers(void)
{
	unsigned char *bbb = calloc((size_t) g_nsupp + 1, 1);
	int64_t		n = scaled(5.0),
				placed = 0;
	rng_t		r;

	if (!bbb)
		die("out of memory", NULL);
	if (2 * n > g_nsupp)
		n = g_nsupp / 2;
	rng_init(&r, S_SUPPLIER_BBB, 0);
	while (placed < 2 * n)
	{
		int64_t		k = rng_range(&r, 1, g_nsupp);

		if (bbb[k])
			continue;
		bbb[k] = placed < n ? 1 : 2;
		placed++;
	}
	return bbb;
}

static void
gen_supplier(out_t *o)
{
	unsigned char *bbb = choose_bbb_suppliers();
	int64_t		k;
	rng_t		r;

	for (k = 1; k <= g_nsupp; k++)
	{
		int			nation;
		size_t		cstart;

		rng_init(&r, S_SUPPLIER, (uint64_t) k);
		out_row_begin(o);
		put_uint(o, (uint64_t) k);
		put_sep(o);
		put_str(o, "Supplier#");
		put_uint_pad(o, (uint64_t) k, 9);
		put_sep(o);
		put_vstring(o, &r, 10, 40);
		put_sep(o);
		nation = (int) rng_range(&r, 0, 24);
		put_uint(o, (uint64_t) nation);
		put_sep(o);
		put_phone(o, &r, nation);
		put_sep(o);
		put_money(o, rng_range(&r, -99999, 999999));
		put_sep(o);
		cstart = o->len;
		put_text(o, &r, 25, 100);
		if (bbb[k])
		{
			/* overwrite "Customer " + gap + "Complaints"/"Recommends" */
			const char *tail = bbb[k] == 1 ? "Complaints" : "Recommends";
			int64_t		clen = (int64_t) (o->len - cstart);
			int64_t		gap = rng_range(&r, 0, clen - 19);
			int64_t		pos = rng_range(&r, 0, clen - 19 - gap);

			memcpy(o->buf + cstart + pos, "Customer ", 9);
			memcpy(o->buf + cstart + pos + 9 + gap, tail, 10);
		}
		out_row_end(o);
	}
	free(bbb);
}

static void
gen_customer(out_t *o)
{
	int64_t		k;
	rng_t		r;

	for (k = 1; k <= g_ncust; k++)
	{
		int			nation;

		rng_init(&r, S_CUSTOMER, (uint64_t) k);
		out_row_begin(o);
		put_uint(o, (uint64_t) k);
		put_sep(o);
		put_str(o, "Customer#");
		put_uint_pad(o, (uint64_t) k, 9);
		put_sep(o);
		put_vstring(o, &r, 10, 40);
		put_sep(o);
		nation = (int) rng_range(&r, 0, 24);
		put_uint(o, (uint64_t) nation);
		put_sep(o);
		put_phone(o, &r, nation);
		put_sep(o);
		put_money(o, rng_range(&r, -99999, 999999));
		put_sep(o);
		put_str(o, SEGMENTS[rng_range(&r, 0, 4)]);
		put_sep(o);
		put_text(o, &r, 29, 116);
		out_row_end(o);
	}
}

static void
gen_part(out_t *o)
{
	int64_t		k;
	rng_t		r;
	const int	ncolors = NWORDS(COLORS);

	for (k = 1; k <= g_npart; k++)
	{
		int			name[5],
					i,
					j,
					mfgr;

		rng_init(&r, S_PART, (uint64_t) k);
		out_row_begin(o);
		put_uint(o, (uint64_t) k);
		put_sep(o);
		/* P_NAME: five distinct colours */
		for (i = 0; i < 5; i++)
		{
			int			dup;

			do
			{
				name[i] = (int) rng_range(&r, 0, ncolors - 1);
				dup = 0;
				for (j = 0; j < i; j++)
					if (name[j] == name[i])
						dup = 1;
			} while (dup);
			if (i)
				o->buf[o->len++] = ' ';
			put_str(o, COLORS[name[i]]);
		}
		put_sep(o);
		mfgr = (int) rng_range(&r, 1, 5);
		put_str(o, "Manufacturer#");
		put_uint(o, (uint64_t) mfgr);
		put_sep(o);
		put_str(o, "Brand#");
		put_uint(o, (uint64_t) mfgr);
		put_uint(o, (uint64_t) rng_range(&r, 1, 5));
		put_sep(o);
		put_str(o, TYPE_S1[rng_range(&r, 0, 5)]);
		o->buf[o->len++] = ' ';
		put_str(o, TYPE_S2[rng_range(&r, 0, 4)]);
		o->buf[o->len++] = ' ';
		put_str(o, TYPE_S3[rng_range(&r, 0, 4)]);
		put_sep(o);
		put_uint(o, (uint64_t) rng_range(&r, 1, 50));
		put_sep(o);
		put_str(o, CONTAINER_S1[rng_range(&r, 0, 4)]);
		o->buf[o->len++] = ' ';
		put_str(o, CONTAINER_S2[rng_range(&r, 0, 7)]);
		put_sep(o);
		put_money(o, retail_price_cents(k));
		put_sep(o);
		put_text(o, &r, 5, 22);
		out_row_end(o);
	}
}

static void
gen_partsupp(out_t *o)
{
	int64_t		k,
				i;
	rng_t		r;

	for (k = 1; k <= g_npart; k++)
	{
		rng_init(&r, S_PARTSUPP, (uint64_t) k);
		for (i = 0; i < 4; i++)
		{
			out_row_begin(o);
			put_uint(o, (uint64_t) k);
			put_sep(o);
			put_uint(o, (uint64_t) part_supplier(k, i));
			put_sep(o);
			put_uint(o, (uint64_t) rng_range(&r, 1, 9999));
			put_sep(o);
			put_money(o, rng_range(&r, 100, 100000));
			put_sep(o);
			put_text(o, &r, 49, 198);
			out_row_end(o);
		}
	}
}

/*
 * O_CUSTKEY: uniform over the customers, but never a multiple of 3 (one
 * third of the customers have no orders).  A key that is a multiple of 3 is
 * moved to the next key, as dbgen does, so customers with key mod 3 = 1 get
 * twice as many orders on average as those with key mod 3 = 2; this gives
 * Q13 its two humps.
 */
static inline int64_t
order_customer(rng_t *r)
{
	int64_t		c = rng_range(r, 1, g_ncust);

	if (c % 3 == 0)
		c = (c + 1 <= g_ncust) ? c + 1 : c - 1;
	return c;
}

typedef struct
{
	int64_t		partkey,
				suppkey,
				quantity,
				price,			/* extended price, cents */
				discount,		/* hundredths */
				tax;			/* hundredths */
	int			ship,
				commit,
				receipt,
				instruct,
				mode;
	char		returnflag,
				linestatus;
	size_t		comment_off,
				comment_len;
} line_t;

static void
gen_orders_lineitem(out_t *oo, out_t *lo, int lineitem_custkey)
{
	int64_t		idx;
	rng_t		r;
	line_t		line[7];

	for (idx = 1; idx <= g_norders; idx++)
	{
		int64_t		okey = order_key(idx),
					cust,
					total = 0,
					clerk;
		int			odate,
					prio,
					nlines,
					i,
					nf = 0;
		size_t		ocomment_len,
					ocomment_off;
		char		status;

		rng_init(&r, S_ORDERS, (uint64_t) idx);
		cust = order_customer(&r);
		odate = (int) rng_range(&r, 0, NDAYS - 1 - 151);
		prio = (int) rng_range(&r, 0, 4);
		clerk = rng_range(&r, 1, g_nclerks);
		ocomment_len = (size_t) rng_range(&r, 19, 78);
		ocomment_off = (size_t) rng_range(&r, 0, (int64_t) (g_pool_len - ocomment_len));
		nlines = (int) rng_range(&r, 1, 7);

		for (i = 0; i < nlines; i++)
		{
			line_t	   *l = &line[i];

			l->partkey = rng_range(&r, 1, g_npart);
			l->suppkey = part_supplier(l->partkey, rng_range(&r, 0, 3));
			l->quantity = rng_range(&r, 1, 50);
			l->price = l->quantity * retail_price_cents(l->partkey);
			l->discount = rng_range(&r, 0, 10);
			l->tax = rng_range(&r, 0, 8);
			l->ship = odate + (int) rng_range(&r, 1, 121);
			l->commit = odate + (int) rng_range(&r, 30, 90);
			l->receipt = l->ship + (int) rng_range(&r, 1, 30);
			if (l->receipt <= g_currentdate)
				l->returnflag = rng_range(&r, 0, 1) ? 'R' : 'A';
			else
				l->returnflag = 'N';
			l->linestatus = l->ship > g_currentdate ? 'O' : 'F';
			nf += l->linestatus == 'F';
			l->instruct = (int) rng_range(&r, 0, 3);
			l->mode = (int) rng_range(&r, 0, 6);
			l->comment_len = (size_t) rng_range(&r, 10, 43);
			l->comment_off = (size_t) rng_range(&r, 0, (int64_t) (g_pool_len - l->comment_len));
			/* extendedprice * (1 - discount) * (1 + tax), rounded to cents */
			total += (l->price * (100 - l->discount) * (100 + l->tax) + 5000) / 10000;
		}
		status = nf == nlines ? 'F' : (nf == 0 ? 'O' : 'P');

		if (oo)
		{
			out_row_begin(oo);
			put_uint(oo, (uint64_t) okey);
			put_sep(oo);
			put_uint(oo, (uint64_t) cust);
			put_sep(oo);
			oo->buf[oo->len++] = status;
			put_sep(oo);
			put_money(oo, total);
			put_sep(oo);
			put_date(oo, odate);
			put_sep(oo);
			put_str(oo, PRIORITIES[prio]);
			put_sep(oo);
			put_str(oo, "Clerk#");
			put_uint_pad(oo, (uint64_t) clerk, 9);
			put_sep(oo);
			oo->buf[oo->len++] = '0';
			put_sep(oo);
			put_mem(oo, g_pool + ocomment_off, ocomment_len);
			out_row_end(oo);
		}
		if (lo)
		{
			for (i = 0; i < nlines; i++)
			{
				const line_t *l = &line[i];

				out_row_begin(lo);
				put_uint(lo, (uint64_t) okey);
				put_sep(lo);
				put_uint(lo, (uint64_t) l->partkey);
				put_sep(lo);
				put_uint(lo, (uint64_t) l->suppkey);
				put_sep(lo);
				put_uint(lo, (uint64_t) (i + 1));
				put_sep(lo);
				put_uint(lo, (uint64_t) l->quantity);
				put_mem(lo, ".00|", 4);
				put_money(lo, l->price);
				put_mem(lo, "|0.", 3);
				put_uint_pad(lo, (uint64_t) l->discount, 2);
				put_mem(lo, "|0.", 3);
				put_uint_pad(lo, (uint64_t) l->tax, 2);
				put_sep(lo);
				lo->buf[lo->len++] = l->returnflag;
				put_sep(lo);
				lo->buf[lo->len++] = l->linestatus;
				put_sep(lo);
				put_date(lo, l->ship);
				put_sep(lo);
				put_date(lo, l->commit);
				put_sep(lo);
				put_date(lo, l->receipt);
				put_sep(lo);
				put_str(lo, INSTRUCTIONS[l->instruct]);
				put_sep(lo);
				put_str(lo, MODES[l->mode]);
				put_sep(lo);
				put_mem(lo, g_pool + l->comment_off, l->comment_len);
				if (lineitem_custkey)
				{
					put_sep(lo);
					put_uint(lo, (uint64_t) cust);
				}
				out_row_end(lo);
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Command line.                                                        */
/* ------------------------------------------------------------------ */

enum
{
	T_REGION, T_NATION, T_SUPPLIER, T_CUSTOMER, T_PART, T_PARTSUPP,
	T_ORDERS, T_LINEITEM, T_COUNT
};

static const char *const TABLE_NAMES[T_COUNT] = {
	"region", "nation", "supplier", "customer", "part", "partsupp",
	"orders", "lineitem"
};

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: tpchgen -s SF [--seed N] [-T TABLES] [-o DIR | -o -] [--lineitem-custkey]\n"
			"\n"
			"  -s, --scale SF        scale factor, 0.01 <= SF <= 1\n"
			"      --seed N          random seed (unsigned 64-bit integer, default 1)\n"
			"  -T, --tables LIST     comma-separated tables, or 'all' (default):\n"
			"                        region,nation,supplier,customer,part,partsupp,orders,lineitem\n"
			"  -o, --output DIR      write DIR/<table>.tbl (default: current directory);\n"
			"                        '-' writes the single selected table to stdout\n"
			"      --lineitem-custkey  append the order's customer key to every lineitem row\n"
			"                        (column l_custkey of the customer-unit schema)\n"
			"  -q, --quiet           no summary on stderr\n"
			"\n"
			"Output: PostgreSQL COPY text format, '|' between columns, one row per line.\n");
}

static const char *
need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
	{
		fprintf(stderr, "tpchgen: option %s needs an argument\n", argv[*i]);
		usage(stderr);
		exit(2);
	}
	return argv[++*i];
}

int
main(int argc, char **argv)
{
	const char *outdir = ".";
	const char *tables = "all";
	int			lineitem_custkey = 0,
				quiet = 0,
				want[T_COUNT] = {0},
				nwant = 0,
				i,
				to_stdout;
	out_t		out[T_COUNT];
	char	   *end;

	g_sf = 0;
	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (!strcmp(a, "-s") || !strcmp(a, "--scale"))
		{
			const char *v = need_arg(argc, argv, &i);

			errno = 0;
			g_sf = strtod(v, &end);
			if (errno || end == v || *end)
				die("invalid scale factor", v);
		}
		else if (!strcmp(a, "--seed"))
		{
			const char *v = need_arg(argc, argv, &i);

			errno = 0;
			g_seed = strtoull(v, &end, 10);
			if (errno || end == v || *end || *v == '-')
				die("invalid seed", v);
		}
		else if (!strcmp(a, "-T") || !strcmp(a, "--tables"))
			tables = need_arg(argc, argv, &i);
		else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			outdir = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--lineitem-custkey"))
			lineitem_custkey = 1;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			quiet = 1;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
		{
			usage(stdout);
			return 0;
		}
		else
		{
			fprintf(stderr, "tpchgen: unknown argument: %s\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (!(g_sf >= 0.01 - 1e-12 && g_sf <= 1.0 + 1e-12))
	{
		fprintf(stderr, "tpchgen: the scale factor (-s) must be between 0.01 and 1\n");
		usage(stderr);
		return 2;
	}

	/* which tables */
	if (!strcmp(tables, "all"))
	{
		for (i = 0; i < T_COUNT; i++)
			want[i] = 1;
	}
	else
	{
		char	   *list = strdup(tables),
				   *tok,
				   *save = NULL;

		if (!list)
			die("out of memory", NULL);
		for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		{
			int			found = 0;

			for (i = 0; i < T_COUNT; i++)
				if (!strcmp(tok, TABLE_NAMES[i]))
				{
					want[i] = 1;
					found = 1;
				}
			if (!found)
				die("unknown table", tok);
		}
		free(list);
	}
	for (i = 0; i < T_COUNT; i++)
		nwant += want[i];
	if (nwant == 0)
		die("no table selected", NULL);
	to_stdout = !strcmp(outdir, "-");
	if (to_stdout && nwant != 1)
		die("-o - writes one table: select it with -T", NULL);

	g_nsupp = scaled(10000);
	g_ncust = scaled(150000);
	g_npart = scaled(200000);
	g_norders = scaled(1500000);
	g_nclerks = scaled(1000);
	if (g_nsupp < 8)
		die("internal error: too few suppliers", NULL);

	init_dates();
	wlist_init(&L_NOUN, NOUNS, NWORDS(NOUNS));
	wlist_init(&L_VERB, VERBS, NWORDS(VERBS));
	wlist_init(&L_ADJ, ADJECTIVES, NWORDS(ADJECTIVES));
	wlist_init(&L_ADV, ADVERBS, NWORDS(ADVERBS));
	wlist_init(&L_PREP, PREPOSITIONS, NWORDS(PREPOSITIONS));
	wlist_init(&L_AUX, AUXILIARIES, NWORDS(AUXILIARIES));
	wlist_init(&L_TERM, TERMINATORS, NWORDS(TERMINATORS));
	wlist_init(&L_SENT, SENTENCES, NWORDS(SENTENCES));
	wlist_init(&L_NP, NOUN_PHRASES, NWORDS(NOUN_PHRASES));
	wlist_init(&L_VP, VERB_PHRASES, NWORDS(VERB_PHRASES));
	build_text_pool();

	if (!to_stdout)
	{
		struct stat st;

		if (stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode))
			die("output directory does not exist", outdir);
	}

	for (i = 0; i < T_COUNT; i++)
	{
		out[i].f = NULL;
		out[i].buf = NULL;
		out[i].len = 0;
		out[i].rows = 0;
		out[i].name = TABLE_NAMES[i];
		if (!want[i])
			continue;
		out[i].buf = malloc(OUT_CAP);
		if (!out[i].buf)
			die("out of memory", NULL);
		if (to_stdout)
			out[i].f = stdout;
		else
		{
			size_t		n = strlen(outdir) + strlen(TABLE_NAMES[i]) + 8;
			char	   *path = malloc(n);

			if (!path)
				die("out of memory", NULL);
			snprintf(path, n, "%s/%s.tbl", outdir, TABLE_NAMES[i]);
			out[i].f = fopen(path, "w");
			if (!out[i].f)
				die("cannot open for writing", path);
			free(path);
		}
	}

	if (want[T_REGION])
		gen_region(&out[T_REGION]);
	if (want[T_NATION])
		gen_nation(&out[T_NATION]);
	if (want[T_SUPPLIER])
		gen_supplier(&out[T_SUPPLIER]);
	if (want[T_CUSTOMER])
		gen_customer(&out[T_CUSTOMER]);
	if (want[T_PART])
		gen_part(&out[T_PART]);
	if (want[T_PARTSUPP])
		gen_partsupp(&out[T_PARTSUPP]);
	if (want[T_ORDERS] || want[T_LINEITEM])
		gen_orders_lineitem(want[T_ORDERS] ? &out[T_ORDERS] : NULL,
							want[T_LINEITEM] ? &out[T_LINEITEM] : NULL,
							lineitem_custkey);

	for (i = 0; i < T_COUNT; i++)
	{
		if (!want[i])
			continue;
		out_flush(&out[i]);
		if (fflush(out[i].f) != 0 || (!to_stdout && fclose(out[i].f) != 0))
			die("write failed", TABLE_NAMES[i]);
		if (!quiet)
			fprintf(stderr, "tpchgen: %-8s %10lld rows\n", TABLE_NAMES[i], out[i].rows);
		free(out[i].buf);
	}
	return 0;
}
