#!/bin/sh
test_description='contrib/bash-completion/dice: options from --help, levels for dice-prompt'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

command -v bash >/dev/null 2>&1 || skip_all 'no bash'
completion="$TOP_SRCDIR/contrib/bash-completion/dice"

# complete WORD...: what bash would offer for the last WORD, sorted.
complete_words () {
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_dice "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$completion" "$@" | sort
}

test_expect_success 'every installed tool has the completion' '
	for path in $DICE_TOOLS; do
		bash -c ". \"\$1\"; complete -p \"\$2\"" x "$completion" "${path##*/}" ||
			return 1
	done >specs &&
	test_line_count = $(echo $DICE_TOOLS | wc -w) specs
'

test_expect_success 'a long option is completed from --help' '
	complete_words dice-split --jo >actual &&
	echo --join >expect &&
	test_cmp expect actual &&
	complete_words dice-curate --min >actual &&
	echo --min-speedup= >expect &&
	test_cmp expect actual
'

test_expect_success 'every option of --help is offered, none other' '
	complete_words dice-check -- >actual &&
	dice-check --help |
		sed -n "s/^ *\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*=\{0,1\}\).*/\2/p" |
		sort -u >expect &&
	test_cmp expect actual &&
	grep -x -e --help -e --strict actual
'

test_expect_success 'dice-prompt completes levels, and files beside them' '
	mkdir sub && cd sub && touch Lfile &&
	complete_words dice-prompt L >../actual && cd .. &&
	printf "%s\n" L1 L2 L3 L4 Lfile >expect &&
	test_cmp expect actual &&
	complete_words dice-prompt al >actual &&
	echo all >expect && test_cmp expect actual
'

test_expect_success 'an option value completes as a file name' '
	touch records.jsonl &&
	complete_words dice-curate --output=rec >actual &&
	echo records.jsonl >expect &&
	test_cmp expect actual
'

test_done
