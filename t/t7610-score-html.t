#!/bin/sh
test_description='dice-score --html and --svg: the report page and the figure, checked as text and rendered in headless Chromium'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# Two runs (model-a, model-b) of two levels of four problems, four samples
# each, written as a pipeline would, with the failures a report must show:
# a compile error whose message is hostile HTML, wrong answers, a crash,
# and a sample caught returning its input, with evidence that is HTML too.
# model-b's samples are numbered from 100: reading joins FILEs and counts
# a sample.index of a problem once.
gen () {
	model=$1 first=$2 scale=$3 device=${4:-NVIDIA H100 80GB HBM3}
	prov="\"device\":\"$device\",\"torch\":\"2.5.1\",\"cuda\":\"12.4\",\"tolerance\":\"dice\",\"precision\":\"fp32\""
	for level in 1 2; do
		for prob in 1 2 3 4; do
			for s in 0 1 2 3; do
				sp=$(awk -v l=$level -v p=$prob -v s=$s -v k=$scale \
					"BEGIN{printf \"%.3f\", k*(0.3+0.6*p+0.4*s)/l}")
				timed="{\"status\":\"ok\",\"speedup\":$sp,\"baseline\":\"eager\",\"device\":\"$device\"}"
				untimed='{"skipped":"not correct"}'
				case $((prob * 4 + s)) in
				5) check="{\"status\":\"compile_error\",\"correct\":false,\"error\":\"nvcc: </script><img src=x onerror=alert(1)> & \\\"q\\\"\",$prov}"
					time=$untimed ;;
				6|13) check="{\"status\":\"incorrect\",\"correct\":false,\"error\":\"max_abs_err 3.2 > atol\",$prov}"
					time=$untimed ;;
				11) check="{\"status\":\"correct\",\"correct\":true,$prov,\"deception\":{\"deceptive\":true,\"because\":[\"returns_input\"],\"flags\":[\"returns_input\"],\"evidence\":{\"returns_input\":\"line 12: return x # <b>not bold</b>\"}}}"
					time=$timed ;;
				17) check="{\"status\":\"runtime_error\",\"correct\":false,\"error\":\"illegal memory access\",$prov}"
					time=$untimed ;;
				*) check="{\"status\":\"correct\",\"correct\":true,$prov,\"deception\":{\"deceptive\":false,\"because\":[],\"flags\":[],\"evidence\":{}}}"
					time=$timed ;;
				esac
				printf '{"id":"L%d/%d_P%d","problem":{"level":%d},"sample":{"index":%d,"model":"%s"},"check":%s,"time":%s}\n' \
					$level $prob $prob $level $((first + s)) "$model" "$check" "$time"
			done
		done
	done
}

test_expect_success 'setup: two runs' '
	gen model-a 0 0.4 >a.jsonl &&
	gen model-b 100 2.5 >b.jsonl &&
	test_line_count = 32 a.jsonl &&
	dice-score a.jsonl b.jsonl >/dev/null
'

test_expect_success '--html and --svg write their files beside the summary' '
	dice-score --html page.html --svg fig.svg a.jsonl b.jsonl >out &&
	dice-score a.jsonl b.jsonl >expect &&
	test_cmp expect out &&
	head -n 1 page.html >actual &&
	echo "<!DOCTYPE html>" >expect &&
	test_cmp expect actual &&
	tail -n 1 page.html >actual &&
	echo "</body></html>" >expect &&
	test_cmp expect actual
'

test_expect_success 'the page: both views of each level and of all levels, a plot each' '
	test $(grep -c "^<svg " page.html) = 6 &&
	for l in "Level 1" "Level 2" "All levels"; do
		grep -F ">$l, robust view<" page.html &&
		grep -F ">$l, plain view<" page.html || return 1
	done &&
	grep -F "<h2>Level 1</h2>" page.html &&
	grep -F "<h2>All levels</h2>" page.html
'

test_expect_success 'the page: a row per problem with its counts, best and median speedup' '
	grep "^<tr><td class=\"id\">L[12]/" page.html >rows &&
	test_line_count = 8 rows &&
	grep -F "<tr><td class=\"id\">L1/1_P1</td><td>8</td><td>4</td><td>2</td><td class=\"bad\">2</td><td>0</td>" rows &&
	grep -F "<tr><td class=\"id\">L1/4_P4</td><td>8</td><td>6</td><td>0</td><td>0</td><td>2</td>" rows &&
	sed -n 1p rows | grep -F "<td>5.25&times;</td><td>1.54&times;</td>" &&
	sed -n 2p rows | grep -F "<td class=\"bad\">2</td><td class=\"id\"><details><summary>2 flags</summary>"
'

test_expect_success 'the page: runs, counts and provenance' '
	grep -F "Runs: a.jsonl, b.jsonl. 64 records, 8 problems, 64 samples; 4 compile errors, 4 deception flags on 4 samples." page.html &&
	grep -F "<th class=\"id\">Checked on</th><td class=\"id\">NVIDIA H100 80GB HBM3 (64)</td>" page.html &&
	grep -F "<th class=\"id\">torch</th><td class=\"id\">2.5.1 (64)</td>" page.html &&
	grep -F "<th class=\"id\">Baseline</th><td class=\"id\">eager (48)</td>" page.html &&
	grep -F "<th class=\"id\">Tolerance</th><td class=\"id\">dice (64)</td>" page.html &&
	! grep -F "mixed" page.html
'

test_expect_success 'the page says when records ran on different devices' '
	gen model-c 200 1 "NVIDIA A100-SXM4-40GB" >c.jsonl &&
	dice-score --html mixed.html a.jsonl c.jsonl >/dev/null &&
	grep -F "NVIDIA H100 80GB HBM3 (32); NVIDIA A100-SXM4-40GB (32) <span class=\"bad\">mixed</span>" mixed.html
'

test_expect_success 'record text is escaped: error messages, evidence, file names' '
	grep -F "nvcc: &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;" page.html &&
	grep -F "return x # &lt;b&gt;not bold&lt;/b&gt;" page.html &&
	! grep -F "<img" page.html &&
	! grep -F "</script>" page.html &&
	cp a.jsonl "<i>&x.jsonl" &&
	dice-score --html odd.html --svg odd.svg "<i>&x.jsonl" b.jsonl >/dev/null &&
	grep -F "&lt;i&gt;&amp;x.jsonl" odd.html &&
	grep -F "&lt;i&gt;&amp;x.jsonl" odd.svg &&
	! grep -F "<i>" odd.html odd.svg
'

test_expect_success 'the page and the figure are self-contained' '
	for f in page.html fig.svg; do
		! grep -i "<[a-z][^>]* \(src\|href\|xlink:href\)=\|<script\|<link\|@import\|url(" $f &&
		! grep -v "xmlns=\"http://www.w3.org/2000/svg\"" $f | grep -i "http:\|https:" || return 1
	done
'

test_expect_success '--svg: a plot per level with a line per run on a log axis' '
	test $(grep -c "^<svg " fig.svg) = 4 &&
	test $(grep -c "^<path " fig.svg) = 6 &&
	for t in 0.1 0.2 0.5 1 2 5 10; do
		grep -q ">$t</text>" fig.svg || return 1
	done &&
	grep -F ">speedup threshold p (log scale; 1 = the reference)</text>" fig.svg &&
	grep -F ">fast_p@1: samples faster than p</text>" fig.svg &&
	grep -F ">a.jsonl</text>" fig.svg && grep -F ">b.jsonl</text>" fig.svg
'

test_expect_success 'one FILE is labelled with --label, else with its model' '
	dice-score --svg one.svg a.jsonl >/dev/null &&
	grep -F ">model-a</text>" one.svg &&
	dice-score --svg one.svg --label "My run" a.jsonl >/dev/null &&
	grep -F ">My run</text>" one.svg
'

test_expect_success '--html -: the page on standard output, in place of the summary; from standard input it says what it cannot show' '
	dice-score --html - <a.jsonl >stdout.html &&
	head -n 1 stdout.html >actual &&
	echo "<!DOCTYPE html>" >expect &&
	test_cmp expect actual &&
	! grep "^level" stdout.html &&
	grep -F "Records read from standard input (or a pipe) cannot be read a second time" stdout.html &&
	! grep -F "<details>" stdout.html &&
	test_expect_code 2 dice-score --html - --svg - a.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score: --svg - and --html - cannot both have standard output" err
'

test_expect_success 'an unwritable --html file is trouble (exit 2) and leaves nothing' '
	test_expect_code 2 dice-score --html no/such/dir/page.html a.jsonl >/dev/null 2>err &&
	grep "^dice-score: cannot write .no/such/dir/page.html.: " err
'

test_expect_success DEVFULL 'a full disk under --html - or --svg - is one error, exit 2' '
	test_expect_code 2 dice-score --html - a.jsonl >/dev/full 2>err &&
	test_line_count = 1 err &&
	test_expect_code 2 dice-score --svg - a.jsonl >/dev/full 2>err &&
	test_line_count = 1 err
'

# Rendering: the page and the figure as a browser draws them.  The
# screenshot must not be blank, and the curves must be there in the
# palette's first two colours (model-a blue, model-b orange).
command -v chromium >/dev/null 2>&1 && test_set_prereq CHROMIUM
test_have_prereq CHROMIUM && "${DICE_PYTHON:-python3}" -c 'import zlib' 2>/dev/null &&
	test_set_prereq RENDER

cat >pngstat.py <<\PYEOF
# Decode an 8-bit RGB(A) PNG (no library): print the share of pixels that
# are not white, the number of distinct colours, and the pixels near each
# colour given as RRGGBB.
import sys, struct, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pr) & 255
    rows.append(bytes(line))
    prev = line
colours, nonwhite = {}, 0
for line in rows:
    for x in range(0, stride, bpp):
        px = line[x:x + 3]
        colours[px] = colours.get(px, 0) + 1
        nonwhite += px != b"\xff\xff\xff"
print("nonwhite %d" % (100 * nonwhite // (w * h)))
print("colours %d" % len(colours))
for want in sys.argv[2:]:
    t = bytes.fromhex(want)
    near = sum(k for px, k in colours.items()
               if max(abs(px[j] - t[j]) for j in range(3)) <= 24)
    print("%s %d" % (want, near))
PYEOF

shot () {
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$PWD/chromium-profile" \
		--screenshot="$PWD/$2" --window-size=$3 "file://$PWD/$1" >/dev/null 2>&1 &&
	test -s "$2"
}

test_expect_success RENDER 'Chromium renders the page: not blank, the curves drawn' '
	shot page.html page.png 1200,1600 &&
	"${DICE_PYTHON:-python3}" pngstat.py page.png 0072b2 d55e00 >stat &&
	cat stat &&
	test $(sed -n "s/^nonwhite //p" stat) -ge 4 &&
	test $(sed -n "s/^colours //p" stat) -gt 20 &&
	test $(sed -n "s/^0072b2 //p" stat) -gt 300 &&
	test $(sed -n "s/^d55e00 //p" stat) -gt 300
'

test_expect_success RENDER 'Chromium renders the SVG: not blank, the curves drawn' '
	shot fig.svg fig.png 1320,300 &&
	"${DICE_PYTHON:-python3}" pngstat.py fig.png 0072b2 d55e00 >stat &&
	cat stat &&
	test $(sed -n "s/^nonwhite //p" stat) -ge 3 &&
	test $(sed -n "s/^colours //p" stat) -gt 20 &&
	test $(sed -n "s/^0072b2 //p" stat) -gt 300 &&
	test $(sed -n "s/^d55e00 //p" stat) -gt 300
'

test_expect_success RENDER 'Chromium parses the hostile text as text: no element comes of it' '
	chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$PWD/chromium-profile" \
		--dump-dom "file://$PWD/page.html" >dom.html 2>/dev/null &&
	grep -F "<h1>dice-score report</h1>" dom.html &&
	! grep -i "<img\|<script" dom.html &&
	grep -F "nvcc: &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" dom.html &&
	test $(grep -o "<details>" dom.html | wc -l) -ge 6 &&
	test $(grep -o "<svg " dom.html | wc -l) = 6
'

test_done
