/* Unit tests for report/html: the escaping of HTML text and of JSON inside <script>, the caps,
 * and the bounds of a case record written by the streaming writer. */
#include "test.h"
#include "base/buf.h"
#include "base/err.h"
#include "report/html.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *text(const char *s, size_t n)
{
    static struct forge_buf b;
    forge_buf_free(&b);
    forge_buf_init(&b, 0);
    CHECK_INT(forge_html_text(&b, s, n), 0);
    forge_buf_addc(&b, '\0');
    return b.data;
}

static char *js(const char *s, size_t n, size_t cap)
{
    static struct forge_buf b;
    forge_buf_free(&b);
    forge_buf_init(&b, 0);
    CHECK_INT(forge_html_json_string(&b, s, n, cap), 0);
    forge_buf_addc(&b, '\0');
    return b.data;
}

TEST(html_text_escapes_the_five_and_what_is_not_text)
{
    CHECK_STR(text("</script><img src=x onerror=alert(1)>", 37), "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    CHECK_STR(text("a & \"b\" 'c'", 11), "a &amp; &quot;b&quot; &#39;c&#39;");
    CHECK_STR(text("tab\tnl\ncr\r", 10), "tab\tnl\ncr\r");
    /* a control character, a stray continuation byte, a cut sequence, a NUL: U+FFFD each */
    CHECK_STR(text("\x01|\x80|\xe2\x82|\0|", 9), "\xef\xbf\xbd|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd|");
    CHECK_STR(text("\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80", 9), "\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80");
}

TEST(json_in_script_escapes_markup_and_line_separators)
{
    CHECK_STR(js("</script><!--&", 14, 0), "\"\\u003c/script\\u003e\\u003c!--\\u0026\"");
    CHECK_STR(js("a\xe2\x80\xa8" "b\xe2\x80\xa9", 8, 0), "\"a\\u2028b\\u2029\"");
    CHECK_STR(js("\"\\\n\r\t\x01\x7f", 7, 0), "\"\\\"\\\\\\n\\r\\t\\u0001\\u007f\"");
    CHECK_STR(js("\xff" "x\xc3", 3, 0), "\"\\ufffdx\\ufffd\"");
    CHECK_STR(js("\xc3\xa9t\xc3\xa9", 5, 0), "\"\xc3\xa9t\xc3\xa9\"");
}

TEST(json_in_script_is_cut_at_its_cap_with_a_count)
{
    char src[5000];
    memset(src, 'z', sizeof src);
    const char *out = js(src, sizeof src, 1024);
    size_t n = strlen(out);
    CHECK(n <= 1024);
    CHECK(n > 900);
    /* the marker counts exactly the bytes left out */
    const char *m = strstr(out, "\xe2\x80\xa6 [+");
    CHECK(m != NULL);
    size_t kept = (size_t)(m - out) - 1;
    char want[64];
    snprintf(want, sizeof want, "\xe2\x80\xa6 [+%zu bytes]\"", sizeof src - kept);
    CHECK_STR(m, want);
    /* escapes are never split, and a multibyte character is never cut */
    char lt[2000];
    for (size_t i = 0; i < sizeof lt; i += 2) memcpy(lt + i, "\xc3\xa9", 2);
    out = js(lt, sizeof lt, 101);
    m = strstr(out, "\xe2\x80\xa6");
    CHECK(m != NULL && (size_t)(m - out - 1) % 2 == 0 && strlen(out) <= 101);
    memset(lt, '<', sizeof lt);
    out = js(lt, sizeof lt, 100);
    m = strstr(out, "\xe2\x80\xa6");
    CHECK(m != NULL && (size_t)(m - out - 1) % 6 == 0 && strlen(out) <= 100);
}

TEST(a_case_record_stays_within_its_bound)
{
    char path[] = "/tmp/forge-html-unit-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    struct forge_err err = {0};
    struct forge_html *h = forge_html_open(path, &err);
    CHECK(h != NULL);
    /* a case with 40 assertions and 300 calls, every text far over its cap */
    char *big = malloc(20000);
    memset(big, '&', 19999);
    big[19999] = '\0';
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "id", big);
    cJSON_AddStringToObject(r, "description", big);
    cJSON_AddFalseToObject(r, "passed");
    cJSON_AddStringToObject(r, "reason", big);
    cJSON *as = cJSON_AddArrayToObject(r, "assertions");
    for (int i = 0; i < 40; i++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "type", big);
        cJSON_AddFalseToObject(a, "passed");
        cJSON_AddStringToObject(a, "reason", big);
        cJSON_AddItemToArray(as, a);
    }
    cJSON *ws = cJSON_AddArrayToObject(r, "warnings");
    for (int i = 0; i < 10; i++) cJSON_AddItemToArray(ws, cJSON_CreateString(big));
    cJSON *t = cJSON_CreateObject();
    cJSON *turns = cJSON_AddArrayToObject(t, "turns");
    cJSON *turn = cJSON_CreateObject();
    cJSON_AddStringToObject(turn, "role", "agent");
    cJSON_AddStringToObject(turn, "content", big);
    cJSON *calls = cJSON_AddArrayToObject(turn, "tool_calls");
    for (int i = 0; i < 300; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", big);
        cJSON_AddStringToObject(c, "arguments", big);
        cJSON_AddStringToObject(c, "result", big);
        cJSON_AddItemToArray(calls, c);
    }
    cJSON_AddItemToArray(turns, turn);
    cJSON *m = cJSON_AddObjectToObject(t, "metadata");
    cJSON_AddStringToObject(m, "model", big);
    cJSON_AddStringToObject(m, "stop_reason", big);
    CHECK_INT(forge_html_case(h, r, t, &err), 0);
    cJSON *rep = cJSON_Parse("{\"summary\":{\"totalCases\":1,\"failed\":1},\"gates\":[],\"regressions\":[],"
                             "\"newPasses\":[]}");
    CHECK_INT(forge_html_close(h, rep, true, &err), 0);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    static char page[1 << 20];
    size_t n = fread(page, 1, sizeof page - 1, f);
    page[n] = '\0';
    fclose(f);
    const char *from = strstr(page, "id=\"forge-cases\">[\n");
    const char *to = strstr(page, "\n]</script>");
    CHECK(from && to);
    from += strlen("id=\"forge-cases\">[\n");
    CHECK((size_t)(to - from) <= FORGE_HTML_CASE_MAX);
    CHECK((size_t)(to - from) > FORGE_HTML_CASE_MAX / 2);
    CHECK(strstr(from, "\"omitted\":") != NULL);
    CHECK(strstr(from, "\"moreAsserts\":28") != NULL);
    CHECK(strstr(page, "&amp;&amp;") != NULL); /* the id in the failing list, escaped */
    unlink(path);
    cJSON_Delete(rep);
    cJSON_Delete(r);
    cJSON_Delete(t);
    free(big);
}

TEST(an_abandoned_report_leaves_nothing)
{
    char dir[] = "/tmp/forge-html-unit-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/r.html", dir);
    struct forge_err err = {0};
    struct forge_html *h = forge_html_open(path, &err);
    CHECK(h != NULL);
    CHECK_INT(forge_html_close(h, NULL, false, &err), 0);
    CHECK(access(path, F_OK) != 0);
    CHECK(rmdir(dir) == 0); /* empty: the temporary file is gone too */
    snprintf(path, sizeof path, "%s/none/r.html", dir);
    CHECK(forge_html_open(path, &err) == NULL);
    CHECK_INT(err.code, FORGE_EIO);
    CHECK(strstr(err.msg, "none/r.html: cannot write the report") != NULL);
    CHECK_INT(forge_html_close(NULL, NULL, true, &err), 0);
}

int main(void)
{
    RUN(html_text_escapes_the_five_and_what_is_not_text);
    RUN(json_in_script_escapes_markup_and_line_separators);
    RUN(json_in_script_is_cut_at_its_cap_with_a_count);
    RUN(a_case_record_stays_within_its_bound);
    RUN(an_abandoned_report_leaves_nothing);
    return TEST_DONE();
}
