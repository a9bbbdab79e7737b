/* forge check FILE... : tool-use validation of recorded trajectories (docs/check.md).
 *
 * JSONL input streams: -j threads (this one among them) take turns cutting the file into chunks
 * of whole lines, each parses, imports and checks its chunk, and finished chunks are printed in
 * input order, so memory stays bounded by (chunks in flight x chunk size) whatever the file
 * size. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/file.h"
#include "base/lines.h"
#include "data/jarena.h"
#include "data/json.h"
#include "score/tooldefs.h"
#include "score/tooluse.h"
#include "score/trajectory.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char forge_usage_check[] =
    "usage: forge check FILE... [options]\n"
    "\n"
    "Checks every tool call of recorded trajectories: right tool, valid arguments, a result\n"
    "that was used, no invented data, no answer that contradicts the tool. Scores and issues\n"
    "are agent-eval-harness's (tool-use package); --deep adds forge's own detectors.\n"
    "FILE is a JSON file (one trajectory, or an array of them) or a JSONL file (one trajectory\n"
    "per line, or agent-eval-harness's one turn per line); '-' reads JSONL from stdin.\n"
    "\n"
    "options:\n"
    "  --tools FILE                 tool definitions (forge, OpenAI, Anthropic, MCP tools/list,\n"
    "                               agent-eval-harness ToolSchema); repeatable\n"
    "  --input-format F             forge, agent-eval-harness, turns, openai, openai-responses,\n"
    "                               anthropic, gemini (default: detected per trajectory)\n"
    "  --strict                     unknown tools are high; any high or critical issue scores 0\n"
    "  --allow-unknown-tools        no unknown_tool issue for calls without a definition\n"
    "  --no-schemas                 do not check arguments against the definitions\n"
    "  --no-result-usage            no missing_result / unused_result checks\n"
    "  --no-hallucination           no hallucinated-content checks\n"
    "  --hallucination-threshold X  flag results whose hallucination score exceeds X (0.3)\n"
    "  --deep                       forge's extra detectors (tool_not_found, tool_misuse,\n"
    "                               result_unused, hallucinated_result, incomplete_integration,\n"
    "                               malformed_result)\n"
    "  --min-score X                a trajectory scoring under X fails (default 0)\n"
    "  --format text|json|jsonl     output format (default text)\n"
    "  --quiet                      text: only failing trajectories and the summary\n"
    "  -j N                         threads (default: the number of CPUs)\n"
    "  --max-line-bytes N           longest JSONL line accepted (default 16777216); a longer\n"
    "                               line ends the reading of its file\n"
    "  --max-file-mb MIB            largest JSON file read whole, in MiB (default 256; a larger\n"
    "                               regular file is read as JSONL)\n"
    "  --max-json-nodes N           most JSON values in one document or line (default 10000000)\n"
    "  --schema-steps N             most schema nodes evaluated per call with --deep\n"
    "                               (default 10000000)\n"
    "  --regex-timeout MS           time limit of one schema pattern match with --deep\n"
    "                               (default 1000; 0 = none)\n"
    "\n"
    "Exit: 0 all passed; 1 a trajectory has a critical issue or scores under --min-score;\n"
    "2 bad usage, a file that could not be read to its end (missing, a folder, over a limit,\n"
    "a read error), or no trajectory could be read.\n";

enum fmt { FMT_TEXT, FMT_JSON, FMT_JSONL };

static void tree_free(cJSON *v);

struct cfg {
    struct forge_tooluse_opts vo;
    struct forge_verify_opts ro;
    cJSON *tools; /* name -> ToolSchema */
    const char *input_format;
    double min_score;
    enum fmt fmt;
    bool quiet;
    int jobs;
    size_t max_line;
};

static const char *const sev_names[4] = {"critical", "high", "medium", "low"};

struct stats {
    long trajectories, passed, failed, bad, calls;
    double score_sum;
    /* a chunk's scores in input order (NULL outside chunks): the run's sum adds them one by
     * one, so the mean is the same whatever the chunk size and thread count */
    double *scores;
    int nscores;
    long sev[5]; /* critical, high, medium, low, other */
};

static void stats_merge(struct stats *a, const struct stats *b)
{
    a->trajectories += b->trajectories;
    a->passed += b->passed;
    a->failed += b->failed;
    a->bad += b->bad;
    a->calls += b->calls;
    a->score_sum += b->score_sum;
    for (int i = 0; i < b->nscores; i++)
        a->score_sum += b->scores[i];
    for (int i = 0; i < 5; i++)
        a->sev[i] += b->sev[i];
}

static int sev_index(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, sev_names[i]) == 0)
            return i;
    return 4;
}

static void count_issues(const cJSON *issues, long *sev)
{
    for (const cJSON *i = issues ? issues->child : NULL; i; i = i->next)
        sev[sev_index(forge_json_str(i, "severity"))]++;
}

static int num(struct forge_buf *b, double d)
{
    char tmp[40];
    return forge_buf_adds(b, forge_json_number(d, tmp));
}

/* A score for people: three decimals, trailing zeros dropped ("0.3", "1", "0.667"). */
static char *short_num(double d, char *out)
{
    snprintf(out, 40, "%.3f", d);
    char *dot = strchr(out, '.');
    if (dot) {
        char *e = out + strlen(out) - 1;
        while (e > dot && *e == '0')
            *e-- = '\0';
        if (e == dot)
            *e = '\0';
    }
    if (strcmp(out, "-0") == 0)
        strcpy(out, "0");
    return out;
}

/* JSON output as forge_json_write writes it (JavaScript's JSON.stringify), numbers through the
 * fast formatter; the kinds read from the type byte, keys written straight. */
static int out_json(struct forge_buf *b, const cJSON *v)
{
    int kind = v->type & 0xFF;
    if (kind == cJSON_Number) {
        char t[40];
        return forge_buf_adds(b, forge_json_number(v->valuedouble, t));
    }
    if (kind == cJSON_String)
        return forge_json_write_string(b, v->valuestring ? v->valuestring : "");
    if (kind != cJSON_Array && kind != cJSON_Object)
        return forge_json_write(b, v, 0);
    bool obj = kind == cJSON_Object;
    int rc = forge_buf_addc(b, obj ? '{' : '[');
    for (const cJSON *c = v->child; c && !rc; c = c->next) {
        if (c != v->child)
            rc = forge_buf_addc(b, ',');
        if (!rc && obj) {
            rc = forge_json_write_string(b, c->string ? c->string : "");
            if (!rc)
                rc = forge_buf_addc(b, ':');
        }
        if (!rc)
            rc = out_json(b, c);
    }
    return rc ? rc : forge_buf_addc(b, obj ? '}' : ']');
}

static int text_issue(struct forge_buf *b, const cJSON *is)
{
    const cJSON *tid = forge_json_get(is, "turnId");
    int rc = forge_buf_adds(b, "  ");
    if (!rc && cJSON_IsNumber(tid)) {
        rc = forge_buf_adds(b, "turn ");
        if (!rc)
            rc = num(b, tid->valuedouble);
        if (!rc)
            rc = forge_buf_adds(b, ": ");
    }
    if (!rc)
        rc = forge_buf_addf(b, "%s (%s): %s\n", forge_json_str(is, "type"),
                            forge_json_str(is, "severity"), forge_json_str(is, "description"));
    return rc;
}

/* Checks one trajectory (borrowed) and renders it into <out>. <where> names it ("file:line"). */
static int check_one(const struct cfg *cfg, const cJSON *traj, const char *file, long line,
                     int index, struct forge_buf *out, struct stats *st, struct forge_err *err)
{
    cJSON *r = forge_tooluse_check(traj, cfg->tools, &cfg->vo, &cfg->ro, err);
    if (!r)
        return err->code;
    int rc = 0;
    const cJSON *val = forge_json_get(r, "validation");
    const cJSON *sum = forge_json_get(r, "summary");
    double vsum = 0;
    int nv = 0;
    long sev[5] = {0};
    for (const cJSON *v = val->child; v; v = v->next, nv++) {
        vsum += forge_json_num(v, "score", 0);
        count_issues(forge_json_get(v, "issues"), sev);
    }
    count_issues(forge_json_get(sum, "issues"), sev);
    double vscore = nv ? vsum / nv : 1;
    double rscore = forge_json_num(sum, "averageScore", 1);
    double score = (vscore + rscore) / 2;
    bool passed = sev[0] == 0 && !(score < cfg->min_score);
    st->trajectories++;
    if (passed)
        st->passed++;
    else
        st->failed++;
    st->calls += (long)forge_json_num(sum, "totalTools", 0);
    if (st->scores)
        st->scores[st->nscores++] = score;
    else
        st->score_sum += score;
    for (int i = 0; i < 5; i++)
        st->sev[i] += sev[i];
    const char *id = forge_json_str(traj, "trajectory_id");
    char where[1200];
    if (line > 0)
        snprintf(where, sizeof where, "%s:%ld", file, line);
    else if (index >= 0)
        snprintf(where, sizeof where, "%s[%d]", file, index);
    else
        snprintf(where, sizeof where, "%s", file);
    if (cfg->fmt == FMT_TEXT) {
        if (cfg->quiet && passed)
            goto out;
        rc = forge_buf_addf(out, "%s %s%s%s  score ", passed ? "PASS" : "FAIL", id ? id : where,
                            id ? "  " : "", id ? where : "");
        char n1[40], n2[40], n3[40];
        if (!rc)
            rc = forge_buf_addf(out, "%s  validation %s  results %s", short_num(score, n1),
                                short_num(vscore, n2), short_num(rscore, n3));
        if (!rc)
            rc = forge_buf_addf(out, "  calls %ld  issues %ld critical, %ld high, %ld medium, %ld low\n",
                                (long)forge_json_num(sum, "totalTools", 0), sev[0], sev[1], sev[2],
                                sev[3] + sev[4]);
        for (const cJSON *v = val->child; v && !rc; v = v->next) {
            const cJSON *is = forge_json_get(v, "issues");
            for (const cJSON *i = is ? is->child : NULL; i && !rc; i = i->next)
                rc = text_issue(out, i);
        }
        const cJSON *is = forge_json_get(sum, "issues");
        for (const cJSON *i = is ? is->child : NULL; i && !rc; i = i->next)
            rc = text_issue(out, i);
    } else {
        cJSON *o = cJSON_CreateObject();
        bool ok = o && cJSON_AddStringToObject(o, "file", file);
        if (ok && line > 0)
            ok = cJSON_AddNumberToObject(o, "line", (double)line);
        if (ok && index >= 0)
            ok = cJSON_AddNumberToObject(o, "index", index);
        if (ok && id)
            ok = cJSON_AddStringToObject(o, "trajectory_id", id);
        ok = ok && cJSON_AddNumberToObject(o, "score", score) && cJSON_AddBoolToObject(o, "passed", passed);
        cJSON *ic = ok ? cJSON_AddObjectToObject(o, "issueCounts") : NULL;
        for (int k = 0; k < 4 && ic; k++)
            ok = ok && cJSON_AddNumberToObject(ic, sev_names[k], (double)(sev[k] + (k == 3 ? sev[4] : 0)));
        if (ok && ic) {
            cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(r, "validation");
            cJSON *res = cJSON_DetachItemFromObjectCaseSensitive(r, "results");
            cJSON *s = cJSON_DetachItemFromObjectCaseSensitive(r, "summary");
            cJSON_AddItemToObject(o, "validation", v);
            cJSON_AddItemToObject(o, "results", res);
            cJSON_AddItemToObject(o, "summary", s);
            rc = out_json(out, o);
            if (!rc)
                rc = forge_buf_addc(out, '\n');
        } else {
            rc = FORGE_ENOMEM;
        }
        tree_free(o);
    }
out:
    tree_free(r);
    if (rc)
        forge_err_set(err, rc, "out of memory writing the report (or the output limit was hit)");
    return rc;
}

/* A JSONL line's trees (the parsed line, the imported trajectory, the check's results) all die
 * when the line is done, so while a worker checks a line, cJSON allocates from the thread's
 * arena (data/jarena) and its frees are no-ops; the arena is reset after the line. This halves
 * the cost of parsing and building results. */

/* Frees a tree, unless it lives in the line's arena (which is dropped whole at the line's end). */
static void tree_free(cJSON *v)
{
    if (!forge_jarena_is_on())
        cJSON_Delete(v);
}

static void diag(struct forge_buf *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diag(struct forge_buf *d, const char *fmt, ...)
{
    char msg[FORGE_ERR_MAX + 1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    forge_buf_addf(d, "forge: check: %s\n", msg);
}

/* Parses, imports and checks one JSONL line. Bad lines are reported to <dg> and counted. */
static void check_line(const struct cfg *cfg, const char *text, size_t len, const char *file,
                       long line, struct forge_buf *out, struct forge_buf *dg, struct stats *st)
{
    struct forge_err err = {0};
    cJSON *doc = forge_json_parse(text, len, "", &err);
    if (!doc) {
        /* message is ":1:COL: what"; put the file's line number in */
        const char *m = err.msg;
        if (strncmp(m, ":1:", 3) == 0)
            m += 2;
        diag(dg, "%s:%ld%s (line skipped)", file, line, m);
        st->bad++;
        return;
    }
    cJSON *traj = forge_trajectory_adopt(doc, cfg->input_format, &err);
    if (!traj) {
        diag(dg, "%s:%ld: %s (line skipped)", file, line, err.msg);
        st->bad++;
        return;
    }
    if (check_one(cfg, traj, file, line, -1, out, st, &err))
        diag(dg, "%s:%ld: %s", file, line, err.msg);
    tree_free(traj);
}

/* ---------------------------------------------------------------------------------------- */
/* Worker pool: chunks of lines checked in parallel, output in input order                   */

/* The -j threads (the calling thread is one of them) take turns at reading: under the input
 * lock a thread takes the next slot of the ring and cuts the next chunk of whole lines from the
 * file into its own buffer, checks it with no lock held (results into the slot), then, under
 * the output lock, marks the slot done and prints every finished chunk that is next in input
 * order. So -j N keeps N threads busy on N cores: a reader thread of its own would make
 * N + 1 of them, woken for every chunk, and its reading would take turns with the checking on
 * the same cores. A thread waits only for a lock held briefly, or when the window of chunks
 * in flight is full because the oldest one is still being checked. */

#define CHUNK_BYTES (64u << 10)
/* chunks in flight per thread: a thread may run this far ahead of a slower (or descheduled)
 * one before it waits for it */
#define WINDOW 8
/* job.read_err when a line could not be added to a chunk */
#define ADD_FAILED 1

struct emit {
    enum fmt fmt;
    long items; /* json: items written so far */
    struct stats total;
    bool input_error; /* a file could not be read to its end: exit 2 */
};

/* A chunk's lines, held by the thread that reads and checks them (one per thread, reused: it is
 * free again once the chunk is checked, and stays in that core's cache). */
struct lines_in {
    struct forge_buf text; /* lines, each followed by '\0' */
    long *lines;           /* line number of each */
    size_t *offs;          /* offset of each in `text` */
    int n, cap;
};

/* A chunk's results, kept in the ring until its turn to be printed. */
struct job {
    struct forge_buf out, dg;
    struct stats st;
    int scores_cap;
    int read_err;   /* reading stopped after this chunk's lines: forge_lines_next's code, or
                     * ADD_FAILED */
    long err_line;  /* and at this line */
    int err_no;     /* with this errno */
    bool done;      /* checked, not yet printed (under pool.mu) */
};

struct pool {
    const struct cfg *cfg;
    const char *file;
    struct emit *e;
    /* input side, under `in` */
    pthread_mutex_t in;
    struct forge_lines *r;
    const char *first; /* a line read before the pool started, not yet in a chunk */
    size_t first_n;
    long first_line;
    bool ended;  /* nothing more to read */
    long fill;   /* chunks taken */
    /* output side, under `mu` */
    pthread_mutex_t mu;
    pthread_cond_t room; /* a chunk was printed (its slot is free) */
    long flush;          /* chunks printed */
    int waiting;         /* threads waiting for room */
    struct job *jobs;
    int njobs;
    pthread_t *threads;
    int nthreads; /* started besides the calling thread */
};

static void emit_out(struct emit *e, const char *s, size_t n)
{
    if (e->fmt != FMT_JSON) {
        fwrite(s, 1, n, stdout);
        return;
    }
    /* json: each item is one line; join them with commas inside the array */
    const char *end = s + n;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (l) {
            fputs(e->items++ ? ",\n" : "\n", stdout);
            fwrite(s, 1, l, stdout);
        }
        s += l + (nl ? 1 : 0);
    }
}

/* Reports why a file's lines stopped (forge_lines_next's code <got>, with errno <errnum>, at
 * line <lineno>): the rest of the file is not read, and the run exits 2. */
static int read_failed(const struct cfg *cfg, const char *file, long lineno, int got, int errnum,
                       struct emit *e)
{
    fflush(stdout);
    if (got == FORGE_ELIMIT)
        forge_cli_error("check: %s:%ld: line longer than %zu bytes (the limit; raise it with "
                        "--max-line-bytes); the rest of the file is not read", file, lineno,
                        cfg->max_line);
    else if (got == FORGE_ENOMEM)
        forge_cli_error("check: %s: out of memory", file);
    else
        forge_cli_error("check: %s: read error: %s", file, strerror(errnum));
    e->total.bad++;
    e->input_error = true;
    return got;
}

/* Adds a line to <c>, and room for its score to <j>. */
static int job_add(struct lines_in *c, struct job *j, const char *s, size_t n, long line)
{
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 64;
        long *l = forge_realloc(c->lines, sizeof *l * (size_t)cap);
        if (!l)
            return FORGE_ENOMEM;
        c->lines = l;
        size_t *o = forge_realloc(c->offs, sizeof *o * (size_t)cap);
        if (!o)
            return FORGE_ENOMEM;
        c->offs = o;
        c->cap = cap;
    }
    if (c->n == j->scores_cap) {
        double *sc = forge_realloc(j->st.scores, sizeof *sc * (size_t)c->cap);
        if (!sc)
            return FORGE_ENOMEM;
        j->st.scores = sc;
        j->scores_cap = c->cap;
    }
    c->offs[c->n] = c->text.len;
    c->lines[c->n] = line;
    int rc = forge_buf_add(&c->text, s, n);
    if (!rc)
        rc = forge_buf_addc(&c->text, '\0');
    if (!rc)
        c->n++;
    return rc;
}

static bool blank_or_comment(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    return i == n || s[i] == '#';
}

/* Under p->in: fills <c> (emptied first) with the next lines, about CHUNK_BYTES of them, or up
 * to the end of the input or a read error (recorded in <j>, to be reported after its lines). */
static void read_chunk(struct pool *p, struct lines_in *c, struct job *j)
{
    forge_buf_reset(&c->text);
    c->n = 0;
    if (p->first) {
        const char *s = p->first;
        p->first = NULL;
        if (job_add(c, j, s, p->first_n, p->first_line)) {
            j->read_err = ADD_FAILED;
            p->ended = true;
            return;
        }
        if (p->r->stream && !forge_lines_ready(p->r))
            return;
    }
    while (c->text.len < CHUNK_BYTES) {
        const char *s;
        size_t n;
        int got = forge_lines_next(p->r, &s, &n);
        if (got <= 0) {
            if (got < 0) {
                j->read_err = got;
                j->err_line = p->r->lineno;
                j->err_no = errno;
            }
            p->ended = true;
            return;
        }
        if (p->r->lineno == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
            s += 3; /* a UTF-8 byte order mark */
            n -= 3;
        }
        if (blank_or_comment(s, n))
            continue;
        if (job_add(c, j, s, n, p->r->lineno)) {
            j->read_err = ADD_FAILED;
            p->ended = true;
            return;
        }
        /* from a pipe or terminal, the lines that have arrived are checked and printed now,
         * not when the chunk is full */
        if (p->r->stream && !forge_lines_ready(p->r))
            return;
    }
}

/* Under p->mu: prints a finished chunk (the next in input order) and empties its slot. */
static void flush_job(struct pool *p, struct job *j)
{
    struct emit *e = p->e;
    if (j->dg.len) {
        fflush(stdout);
        fwrite(j->dg.data, 1, j->dg.len, stderr);
    }
    if (j->out.len)
        emit_out(e, j->out.data, j->out.len);
    if (p->r->stream)
        fflush(stdout);
    stats_merge(&e->total, &j->st);
    if (j->read_err == ADD_FAILED) {
        fflush(stdout);
        forge_cli_error("check: out of memory");
    } else if (j->read_err) {
        read_failed(p->cfg, p->file, j->err_line, j->read_err, j->err_no, e);
    }
    forge_buf_reset(&j->out);
    forge_buf_reset(&j->dg);
    double *scores = j->st.scores;
    memset(&j->st, 0, sizeof j->st);
    j->st.scores = scores;
    j->read_err = 0;
    j->done = false;
}

/* One thread's share: read a chunk, check it, print what is next in order; until the input
 * ends. */
static void run_chunks(struct pool *p)
{
    struct lines_in c = {0};
    forge_buf_init(&c.text, 0);
    for (;;) {
        pthread_mutex_lock(&p->in);
        if (p->ended) {
            pthread_mutex_unlock(&p->in);
            break;
        }
        /* p->fill changes only under p->in, which this thread holds */
        pthread_mutex_lock(&p->mu);
        while (p->fill - p->flush >= p->njobs) {
            p->waiting++;
            pthread_cond_wait(&p->room, &p->mu);
            p->waiting--;
        }
        pthread_mutex_unlock(&p->mu);
        struct job *j = &p->jobs[p->fill % p->njobs];
        p->fill++;
        read_chunk(p, &c, j);
        pthread_mutex_unlock(&p->in);

        for (int i = 0; i < c.n; i++) {
            const char *s = c.text.data + c.offs[i];
            size_t len = (i + 1 < c.n ? c.offs[i + 1] - 1 : c.text.len - 1) - c.offs[i];
            forge_jarena_on(true);
            check_line(p->cfg, s, len, p->file, c.lines[i], &j->out, &j->dg, &j->st);
            forge_jarena_on(false);
            forge_jarena_reset();
        }

        pthread_mutex_lock(&p->mu);
        j->done = true;
        bool freed = false;
        for (struct job *k; (k = &p->jobs[p->flush % p->njobs])->done; p->flush++) {
            flush_job(p, k);
            freed = true;
        }
        if (freed && p->waiting)
            pthread_cond_broadcast(&p->room);
        pthread_mutex_unlock(&p->mu);
    }
    forge_buf_free(&c.text);
    forge_free(c.lines);
    forge_free(c.offs);
}

static void *worker(void *arg)
{
    run_chunks(arg);
    forge_jarena_drop();
    return NULL;
}

/* Frees what check_chunks made (after the threads are joined). */
static void pool_free(struct pool *p)
{
    for (int i = 0; p->jobs && i < p->njobs; i++) {
        forge_buf_free(&p->jobs[i].out);
        forge_buf_free(&p->jobs[i].dg);
        forge_free(p->jobs[i].st.scores);
    }
    forge_free(p->jobs);
    forge_free(p->threads);
    pthread_mutex_destroy(&p->in);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->room);
}

/* Checks the rest of <r>'s lines, <first> (line <first_line>, already read) first, on cfg->jobs
 * threads: this one and cfg->jobs - 1 started here. */
static int check_chunks(const struct cfg *cfg, struct forge_lines *r, const char *first,
                        size_t first_n, const char *file, struct emit *e)
{
    struct pool p;
    memset(&p, 0, sizeof p);
    p.cfg = cfg;
    p.file = file;
    p.e = e;
    p.r = r;
    p.first = first;
    p.first_n = first_n;
    p.first_line = r->lineno;
    /* one thread prints each chunk as soon as it is checked: one slot is enough */
    p.njobs = cfg->jobs == 1 ? 1 : cfg->jobs * WINDOW;
    p.jobs = forge_calloc((size_t)p.njobs, sizeof *p.jobs);
    p.threads = forge_calloc((size_t)cfg->jobs, sizeof *p.threads);
    pthread_mutex_init(&p.in, NULL);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.room, NULL);
    int rc = 0;
    if (!p.jobs || !p.threads) {
        forge_cli_error("check: out of memory");
        rc = FORGE_ENOMEM;
        goto out;
    }
    for (int i = 0; i < p.njobs; i++) {
        forge_buf_init(&p.jobs[i].out, 0);
        forge_buf_init(&p.jobs[i].dg, 0);
    }
    /* the threads wait for the input lock until all have started: when one cannot start,
     * nothing has been read, and the others end without reading */
    pthread_mutex_lock(&p.in);
    for (int i = 1; i < cfg->jobs; i++) {
        if (pthread_create(&p.threads[p.nthreads], NULL, worker, &p)) {
            p.ended = true;
            pthread_mutex_unlock(&p.in);
            for (int k = 0; k < p.nthreads; k++)
                pthread_join(p.threads[k], NULL);
            forge_cli_error("check: cannot start worker threads");
            rc = FORGE_ENOMEM;
            goto out;
        }
        p.nthreads++;
    }
    pthread_mutex_unlock(&p.in);
    run_chunks(&p);
    for (int k = 0; k < p.nthreads; k++)
        pthread_join(p.threads[k], NULL);
out:
    pool_free(&p);
    return rc;
}

/* agent-eval-harness's one-turn-per-line files: the whole file is one trajectory. */
static int check_turn_lines(const struct cfg *cfg, struct forge_lines *r, const char *first,
                            size_t first_n, const char *file, struct emit *e)
{
    struct forge_err err = {0};
    cJSON *turns = cJSON_CreateArray();
    size_t total = 0;
    int rc = 0;
    const char *s = first;
    size_t n = first_n;
    int got = 1;
    while (got != 0 && !rc) {
        if (got < 0) {
            rc = read_failed(cfg, file, r->lineno, got, errno, e);
            break;
        }
        if (!blank_or_comment(s, n)) {
            total += n;
            if (total > forge_file_input_limit()) {
                /* the turns make one trajectory, held whole like a JSON file */
                forge_file_limit_error(file, &err);
                forge_cli_error("check: %s", err.msg);
                e->total.bad++;
                e->input_error = true;
                rc = FORGE_ELIMIT;
                break;
            }
            cJSON *t = forge_json_parse(s, n, "", &err);
            if (!t) {
                const char *m = err.msg;
                if (strncmp(m, ":1:", 3) == 0)
                    m += 2;
                forge_cli_error("check: %s:%ld%s (line skipped)", file, r->lineno, m);
                e->total.bad++;
            } else {
                cJSON_AddItemToArray(turns, t);
            }
        }
        got = forge_lines_next(r, &s, &n);
    }
    if (!rc && turns->child) {
        cJSON *traj = forge_trajectory_import(turns, "turns", &err);
        struct forge_buf out;
        forge_buf_init(&out, 0);
        if (!traj || check_one(cfg, traj, file, -1, -1, &out, &e->total, &err)) {
            forge_cli_error("check: %s: %s", file, err.msg);
            rc = err.code;
        } else {
            emit_out(e, out.data, out.len);
        }
        forge_buf_free(&out);
        cJSON_Delete(traj);
    }
    cJSON_Delete(turns);
    return rc;
}

static int check_jsonl(const struct cfg *cfg, FILE *f, const char *file, struct emit *e)
{
    struct forge_lines r;
    forge_lines_init(&r, f, cfg->max_line);
    struct stat st;
    r.stream = fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode);
    /* the threads read under a lock: a read of a chunk's size keeps it short (a whole 1 MiB
     * buffer at once held it about ten times as long as the cutting of a chunk, every 16 chunks) */
    r.block = CHUNK_BYTES;
    int rc = 0;
    const char *s;
    size_t n;
    int got;
    /* up to the first line that is not blank or a comment, which tells the form of the file */
    while ((got = forge_lines_next(&r, &s, &n)) != 0) {
        if (got < 0) {
            rc = read_failed(cfg, file, r.lineno, got, errno, e);
            break;
        }
        if (r.lineno == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
            s += 3; /* a UTF-8 byte order mark */
            n -= 3;
        }
        if (blank_or_comment(s, n))
            continue;
        bool turns = cfg->input_format && strcmp(cfg->input_format, "turns") == 0;
        if (!cfg->input_format) {
            cJSON *doc = forge_json_parse(s, n, "", NULL);
            const char *fmt = doc ? forge_trajectory_detect(doc) : NULL;
            turns = fmt && strcmp(fmt, "turns") == 0;
            cJSON_Delete(doc);
        }
        if (turns)
            rc = check_turn_lines(cfg, &r, s, n, file, e);
        else
            rc = check_chunks(cfg, &r, s, n, file, e);
        break;
    }
    forge_lines_free(&r);
    return rc;
}

/* A whole JSON document: one trajectory, or an array of trajectories. */
static int check_document(const struct cfg *cfg, const cJSON *doc, const char *file, struct emit *e)
{
    struct forge_err err = {0};
    struct forge_buf out, dg;
    forge_buf_init(&out, 0);
    forge_buf_init(&dg, 0);
    bool list = cJSON_IsArray(doc) && doc->child && cJSON_IsObject(doc->child) &&
                cJSON_IsArray(forge_json_get(doc->child, "turns"));
    int rc = 0;
    if (list) {
        int i = 0;
        for (const cJSON *t = doc->child; t && !rc; t = t->next, i++) {
            cJSON *traj = forge_trajectory_import(t, cfg->input_format, &err);
            if (!traj) {
                diag(&dg, "%s[%d]: %s (skipped)", file, i, err.msg);
                e->total.bad++;
            } else {
                rc = check_one(cfg, traj, file, -1, i, &out, &e->total, &err);
                if (rc)
                    diag(&dg, "%s[%d]: %s", file, i, err.msg);
            }
            cJSON_Delete(traj);
            if (dg.len) {
                fflush(stdout);
                fputs(dg.data, stderr);
                forge_buf_reset(&dg);
            }
            if (out.len) {
                emit_out(e, out.data, out.len);
                forge_buf_reset(&out);
            }
        }
    } else {
        cJSON *traj = forge_trajectory_import(doc, cfg->input_format, &err);
        if (!traj) {
            forge_cli_error("check: %s: %s", file, err.msg);
            e->total.bad++;
        } else if ((rc = check_one(cfg, traj, file, -1, -1, &out, &e->total, &err))) {
            forge_cli_error("check: %s: %s", file, err.msg);
        } else {
            emit_out(e, out.data, out.len);
        }
        cJSON_Delete(traj);
    }
    forge_buf_free(&out);
    forge_buf_free(&dg);
    return rc;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int check_file(const struct cfg *cfg, const char *file, struct emit *e)
{
    if (strcmp(file, "-") == 0)
        return check_jsonl(cfg, stdin, "<stdin>", e);
    bool jsonl = ends_with(file, ".jsonl") || ends_with(file, ".ndjson");
    int rc = 0;
    if (!jsonl) {
        struct forge_err err = {0};
        char *text = NULL;
        size_t len = 0;
        struct stat st;
        bool regular = stat(file, &st) == 0 && S_ISREG(st.st_mode);
        if (forge_file_read_input(file, &text, &len, &err)) {
            /* a regular file too big to be one document is streamed as lines; a pipe or device
             * cannot be read again */
            if (err.code != FORGE_ELIMIT || !regular) {
                forge_cli_error("check: %s", err.msg);
                rc = err.code;
                goto bad;
            }
            jsonl = true;
        } else {
            cJSON *doc = forge_json_parse(text, len, file, &err);
            if (doc) {
                forge_free(text);
                rc = check_document(cfg, doc, file, e);
                cJSON_Delete(doc);
                return rc;
            }
            /* not one document: JSON lines when its first line is a JSON value */
            const char *nl = memchr(text, '\n', len);
            cJSON *first = nl && regular ? forge_json_parse(text, (size_t)(nl - text), "", NULL)
                                         : NULL;
            forge_free(text);
            if (!first) {
                forge_cli_error("check: %s", err.msg);
                rc = err.code;
                goto bad;
            }
            cJSON_Delete(first);
        }
    }
    struct stat st;
    if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
        forge_cli_error("check: %s: is a directory", file);
        rc = FORGE_EIO;
        goto bad;
    }
    FILE *f = fopen(file, "rb");
    if (!f) {
        forge_cli_error("check: %s: %s", file, strerror(errno));
        rc = FORGE_EIO;
        goto bad;
    }
    rc = check_jsonl(cfg, f, file, e);
    fclose(f);
    return rc;
bad:
    e->total.bad++;
    e->input_error = true;
    return rc;
}

static int parse_double(const char *flag, const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || errno || isnan(d)) {
        forge_cli_error("check: %s needs a number, got '%s'", flag, v ? v : "");
        return -1;
    }
    *out = d;
    return 0;
}

int forge_cmd_check(int argc, char **argv)
{
    struct cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    forge_tooluse_opts_init(&cfg.vo);
    forge_verify_opts_init(&cfg.ro);
    cfg.max_line = 16u << 20;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.jobs = ncpu > 0 ? (int)(ncpu > 64 ? 64 : ncpu) : 2;
    const char **files = forge_calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, code = FORGE_EXIT_USAGE;
    struct forge_tooluse_schemas *schemas = NULL;
    if (!files) {
        forge_cli_error("check: out of memory");
        return FORGE_EXIT_INFRA;
    }
    bool opts_done = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r;
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            files[nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else if (strcmp(a, "--tools") == 0) {
            if (!v) {
                forge_cli_error("check: --tools needs a FILE");
                goto out;
            }
            i++;
            struct forge_err err = {0};
            cJSON *t = forge_tooldefs_load(v, &err);
            if (!t) {
                forge_cli_error("check: %s", err.msg);
                goto out;
            }
            if (!cfg.tools) {
                cfg.tools = t;
            } else {
                for (cJSON *c = t->child; c; c = c->next)
                    if (forge_json_get(cfg.tools, c->string)) {
                        forge_cli_error("check: %s: tool '%s' is already defined by an earlier "
                                        "--tools file", v, c->string);
                        cJSON_Delete(t);
                        goto out;
                    }
                while (t->child) {
                    cJSON *c = t->child;
                    cJSON_DetachItemViaPointer(t, c);
                    cJSON_AddItemToObject(cfg.tools, c->string, c);
                }
                cJSON_Delete(t);
            }
        } else if (strcmp(a, "--input-format") == 0) {
            bool known = false;
            for (int k = 0; v && forge_trajectory_formats[k]; k++)
                known |= strcmp(v, forge_trajectory_formats[k]) == 0;
            if (!known) {
                forge_cli_error("check: --input-format must be one of forge, agent-eval-harness, "
                                "turns, openai, openai-responses, anthropic, gemini (got '%s')",
                                v ? v : "");
                goto out;
            }
            cfg.input_format = v;
            i++;
        } else if (strcmp(a, "--strict") == 0) {
            cfg.vo.strict = true;
        } else if (strcmp(a, "--allow-unknown-tools") == 0) {
            cfg.vo.allow_unknown_tools = true;
        } else if (strcmp(a, "--no-schemas") == 0) {
            cfg.vo.validate_schemas = false;
        } else if (strcmp(a, "--no-result-usage") == 0) {
            cfg.vo.check_result_usage = false;
            cfg.ro.check_usage = false;
        } else if (strcmp(a, "--no-hallucination") == 0) {
            cfg.vo.detect_hallucination = false;
            cfg.ro.detect_hallucination = false;
        } else if (strcmp(a, "--hallucination-threshold") == 0) {
            if (parse_double(a, v, &cfg.ro.hallucination_threshold))
                goto out;
            i++;
        } else if (strcmp(a, "--deep") == 0) {
            cfg.vo.deep = true;
            cfg.ro.deep = true;
        } else if (strcmp(a, "--min-score") == 0) {
            if (parse_double(a, v, &cfg.min_score))
                goto out;
            i++;
        } else if (strcmp(a, "--format") == 0) {
            if (v && strcmp(v, "text") == 0)
                cfg.fmt = FMT_TEXT;
            else if (v && strcmp(v, "json") == 0)
                cfg.fmt = FMT_JSON;
            else if (v && strcmp(v, "jsonl") == 0)
                cfg.fmt = FMT_JSONL;
            else {
                forge_cli_error("check: --format must be text, json or jsonl (got '%s')", v ? v : "");
                goto out;
            }
            i++;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            cfg.quiet = true;
        } else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) {
            double d;
            if (parse_double(a, v, &d))
                goto out;
            if (d < 1 || d > 256 || d != floor(d)) {
                forge_cli_error("check: %s must be a whole number from 1 to 256", a);
                goto out;
            }
            cfg.jobs = (int)d;
            i++;
        } else if ((r = forge_cli_input_opt("check", argc, argv, &i)) != 0) {
            if (r < 0)
                goto out;
        } else if (strcmp(a, "--max-line-bytes") == 0) {
            double d;
            if (parse_double(a, v, &d))
                goto out;
            if (d < 1 || d > (double)FORGE_FILE_LIMIT * 4) {
                forge_cli_error("check: --max-line-bytes must be from 1 to %zu",
                                (size_t)FORGE_FILE_LIMIT * 4);
                goto out;
            }
            cfg.max_line = (size_t)d;
            i++;
        } else {
            forge_cli_error("check: unknown option '%s' (run 'forge help check')", a);
            goto out;
        }
    }
    if (!nfiles) {
        forge_cli_error("check: no trajectory file given (usage: forge check FILE... [options])");
        goto out;
    }
    if (cfg.vo.deep && cfg.tools) {
        struct forge_err err = {0};
        schemas = forge_tooluse_schemas_compile(cfg.tools, &err);
        if (!schemas) {
            forge_cli_error("check: --tools: %s", err.msg);
            goto out;
        }
        cfg.vo.schema_check = forge_tooluse_schemas_check;
        cfg.vo.schema_ctx = schemas;
    }
    forge_jarena_install();
    struct emit e = {.fmt = cfg.fmt};
    if (cfg.fmt == FMT_JSON)
        fputs("{\"trajectories\":[", stdout);
    for (int i = 0; i < nfiles; i++)
        check_file(&cfg, files[i], &e);
    const struct stats *t = &e.total;
    double mean = t->trajectories ? t->score_sum / (double)t->trajectories : 0;
    char ms[40];
    if (cfg.fmt == FMT_TEXT)
        short_num(mean, ms);
    else
        forge_json_number(mean, ms);
    if (cfg.fmt == FMT_TEXT) {
        printf("%ld trajector%s: %ld passed, %ld failed; %ld call%s; mean score %s; issues %ld "
               "critical, %ld high, %ld medium, %ld low",
               t->trajectories, t->trajectories == 1 ? "y" : "ies", t->passed, t->failed, t->calls,
               t->calls == 1 ? "" : "s", ms, t->sev[0], t->sev[1],
               t->sev[2], t->sev[3] + t->sev[4]);
        if (t->bad)
            printf("; %ld skipped (unreadable)", t->bad);
        putchar('\n');
    } else {
        char sum[512];
        snprintf(sum, sizeof sum,
                 "{\"trajectories\":%ld,\"passed\":%ld,\"failed\":%ld,\"skipped\":%ld,"
                 "\"calls\":%ld,\"meanScore\":%s,\"issueCounts\":{\"critical\":%ld,\"high\":%ld,"
                 "\"medium\":%ld,\"low\":%ld}}",
                 t->trajectories, t->passed, t->failed, t->bad, t->calls, ms, t->sev[0],
                 t->sev[1], t->sev[2], t->sev[3] + t->sev[4]);
        if (cfg.fmt == FMT_JSON)
            printf("\n],\"summary\":%s}\n", sum);
        else
            printf("{\"summary\":%s}\n", sum);
    }
    fflush(stdout);
    if (t->trajectories == 0) {
        forge_cli_error("check: no trajectory could be read");
        code = FORGE_EXIT_USAGE;
    } else if (e.input_error) {
        code = FORGE_EXIT_USAGE;
    } else {
        code = t->failed ? FORGE_EXIT_FAIL : FORGE_EXIT_OK;
    }
out:
    forge_tooluse_schemas_free(schemas);
    cJSON_Delete(cfg.tools);
    forge_free(files);
    return code;
}
