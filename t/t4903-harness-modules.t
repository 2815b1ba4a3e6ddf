#!/bin/sh
test_description='dice_harness: no import circle; the secret rule comes with the job'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

PKG=$DICE_DATADIR/python/dice_harness

# secret NAME... with the job's PATTERNS (JSON, or "absent"): "NAME yes|no".
secret () {
	PYTHONPATH=$DICE_DATADIR/python "$DICE_PYTHON" -c '
import json, sys
from dice_harness import redact
raw = sys.argv[1]
patterns = None if raw == "absent" else json.loads(raw)
for name in sys.argv[2:]:
    env = {name: "value-of-" + name}
    redact._secrets[:] = []
    redact.remember_secrets(env, patterns)
    print(name, "yes" if redact.clean(env[name]) == "[redacted]" else "no")' "$@"
}

PATTERNS='{"words":["KEY","COOKIE"],"prefixes":["AWS_","HF_"]}'

test_expect_success 'the harness modules import each other in no circle' '
	"$DICE_PYTHON" "$TEST_SRCDIR/harness-imports.py" "$PKG" >graph &&
	grep "^runner -> " graph &&
	! grep "^cycle:" graph
'

test_expect_success 'the circle finder finds a circle' '
	mkdir circle &&
	cp "$PKG"/*.py circle/ &&
	echo "from . import timing" >>circle/device.py &&
	test_expect_code 1 "$DICE_PYTHON" "$TEST_SRCDIR/harness-imports.py" circle >graph &&
	grep "^cycle: .*device.*timing" graph
'

test_expect_success 'a name holding a word, in any case, is secret' '
	secret "$PATTERNS" MY_API_KEY monkey_keys HTTP_COOKIE Cookie >actual &&
	! grep " no$" actual
'

test_expect_success 'a name starting with a prefix is secret; holding it elsewhere is not' '
	secret "$PATTERNS" AWS_REGION aws_profile hf_home MY_AWS_REGION \
		PATH HOME SHF_X >actual &&
	cat >expect <<-\EOF &&
	AWS_REGION yes
	aws_profile yes
	hf_home yes
	MY_AWS_REGION no
	PATH no
	HOME no
	SHF_X no
	EOF
	test_cmp expect actual
'

test_expect_success 'the harness keeps no list of its own: without the job field nothing is secret' '
	secret absent MY_API_KEY GITHUB_TOKEN AWS_SECRET >actual &&
	! grep " yes$" actual &&
	secret "{}" MY_API_KEY >actual &&
	grep "MY_API_KEY no" actual &&
	secret "{\"words\":[\"TOKEN\"]}" GITHUB_TOKEN MY_API_KEY >actual &&
	printf "GITHUB_TOKEN yes\nMY_API_KEY no\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'short values are never taken for secrets' '
	PYTHONPATH=$DICE_DATADIR/python "$DICE_PYTHON" -c "
from dice_harness import redact
redact.remember_secrets({\"MY_KEY\": \"abc\"}, {\"words\": [\"KEY\"]})
print(redact.clean(\"abc abcd\"))" >actual &&
	echo "abc abcd" >expect &&
	test_cmp expect actual
'

test_done
