"""The engine's named limits, each defined once. Views have their own (what a page draws at most),
next to the view that draws; these are limits of the algorithms themselves.
"""

# Training: a merge costs Python work in proportion to the length of each word it touches, so a
# 5 MB line without spaces (one "word") would take minutes per merge. Longer words are cut into
# pieces of this many characters before training, and the trace says so.
MAX_TRAINING_WORD_CHARS = 10_000

# WordPiece's longest-match encoder: a longer word is one unknown token, as Hugging Face's
# WordPiece does with its default max_input_chars_per_word (BERT's vocab.txt files rely on it).
WORDPIECE_MAX_WORD_CHARS = 100

MAX_VOCAB_SIZE = 1_000_000
# Unigram: EM steps between two prunings (Hugging Face's default 2, the app offers 1 to 10). Each
# one is kept in the trace; 10^9 of them on a corpus that cannot be pruned ran for ever.
MAX_SUB_ITERATIONS = 100
MAX_CHANGED_WORDS = 20   # words kept per merge step for display; the exact total is kept beside them

# The largest count or total a trace read from a session file may hold (words' counts, pair counts,
# total tokens, vocabulary frequencies, and a likelihood score's numerator; its denominator, a
# product of two counts, may reach the square). A table gives one word at most 10^15 (MAX_TABLE_COUNT),
# so 10^18 leaves room for a thousand such words in a total; and it keeps what pages make of these
# numbers in range: a total, or the sum of nine of them, fits a 64-bit integer (Plotly's JSON and
# pandas columns refuse more: "Integer exceeds 64-bit range"), and a score is a float between
# 10^-36 and 10^18. (Above 2^53, about 9 * 10^15, the browser's charts show the number rounded.)
MAX_TRACE_NUMBER = 10 ** 18
MAX_TABLE_COUNT = 10 ** 15   # one row's count in a word-count table (read, or written by `combine`)
