#!/usr/bin/env bash
# The GreedTok paper's comparisons (Table 3, Figure 3, Section 5.4) on the shared corpora.
# Writes benchmarks/compare/*/ and benchmarks/hierarchical/*/; results in benchmarks/RESULTS.md.
# Needs: pip install ".[plot]". Took 9 minutes on 2 cores (the English Wikipedia counts
# alone 6.5: HF's BpeTrainer only counts words itself, so 2.24 G occurrences are fed to it).
set -euo pipefail
cd "$(dirname "$0")/.."
S=${HF_GREEDTOK_SHARED:-../shared}/corpora
K="100 200 500 1000 2000 5000 10000"
hf-greedtok compare $S/en_wiki2012_wordcounts.tsv --counts -k $K -o benchmarks/compare/en_wiki2012_wordcounts --overwrite --quiet
hf-greedtok compare $S/en_brown.txt -k $K -o benchmarks/compare/en_brown --overwrite --quiet
hf-greedtok compare $S/zh_jieba_wordcounts.tsv --counts -k $K -o benchmarks/compare/zh_jieba_wordcounts --overwrite --quiet
hf-greedtok compare $S/code_python_stdlib.txt -k $K -o benchmarks/compare/code_python_stdlib --overwrite --quiet
hf-greedtok compare $S/en_brown.txt --pattern whitespace -k $K -o benchmarks/compare/en_brown_whitespace --overwrite --quiet
hf-greedtok compare $S/code_python_stdlib.txt --pattern whitespace -k $K -o benchmarks/compare/code_python_stdlib_whitespace --overwrite --quiet
hf-greedtok hierarchical $S/en_brown.txt $S/zh_reviews.txt $S/code_python_stdlib.txt -k 5000 -o benchmarks/hierarchical/en_zh_code --overwrite --quiet
