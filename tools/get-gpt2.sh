#!/bin/sh
# tools/get-gpt2.sh: downloads a GPT-2 model from Hugging Face into a
# directory that attnview --model reads.
#
#   tools/get-gpt2.sh NAME DIR
#   attnview --model DIR --print next "The capital of France is"
#
# NAME: gpt2 (124M parameters, 500 MB), distilgpt2 (330 MB), gpt2-medium
# (1.4 GB), gpt2-large (3.1 GB), gpt2-xl (6.4 GB), or any Hugging Face
# repository OWNER/NAME of a GPT-2 with a model.safetensors. Fetches
# model.safetensors, vocab.json, merges.txt and config.json with curl from
# https://huggingface.co/NAME/resolve/main/, each into a temporary file that
# is renamed only when whole, so an interrupted download leaves no half file.
# For a class: install DIR as PKGDATADIR/models/NAME (e.g.
# /usr/local/share/attnview/models/gpt2) and students run --model gpt2,
# which --restricted allows.
set -eu

usage() {
	echo "usage: $0 NAME DIR   (NAME: gpt2, distilgpt2, gpt2-medium, gpt2-large, gpt2-xl or OWNER/NAME)" >&2
	exit 2
}
[ $# -eq 2 ] || usage
name=$1
dir=$2
case $name in
gpt2) repo=openai-community/gpt2 ;;
gpt2-medium | gpt2-large | gpt2-xl) repo=openai-community/$name ;;
distilgpt2) repo=distilbert/distilgpt2 ;;
*/*) repo=$name ;;
*) usage ;;
esac
case $repo in
*[!A-Za-z0-9._/-]* | */*/* | .* | */.*) echo "$0: invalid repository name '$repo'" >&2; exit 2 ;;
esac
command -v curl >/dev/null 2>&1 || { echo "$0: curl is not installed" >&2; exit 2; }

mkdir -p "$dir"
base=https://huggingface.co/$repo/resolve/main
for file in config.json vocab.json merges.txt model.safetensors; do
	echo "$0: $repo: $file"
	tmp="$dir/.$file.part"
	if curl -fL --retry 3 --proto '=https' -o "$tmp" "$base/$file"; then
		mv "$tmp" "$dir/$file"
	else
		rm -f "$tmp"
		# config.json is optional: attnview infers the sizes without it
		[ "$file" = config.json ] && continue
		echo "$0: could not download $base/$file" >&2
		exit 1
	fi
done
echo "$0: done; try: attnview --model '$dir' --print next \"The capital of France is\""
