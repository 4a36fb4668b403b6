# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The trainer's two corpus-wide loops, compiled: core/trainer.py's _Trainer._merge_words and
_Trainer._count_pairs, step for step (same arguments, same results, same updates in place).
The Python methods are the reference; tests/core/test_fast_path.py checks that both give the
same trace for every model and tie rule. Built by core/fast/build.py (`make fast`); optional.

What is compiled: the words live in C arrays (Words), where a merge scans each word for the pair
and rebuilds it in place; the pair counts are summed in C and each merge's bookkeeping (counts,
values, the queue) is one pass (settle_merge). Pair counts, pair word lists, values and the trace
stay the Python dicts and lists the rest of the trainer reads.
"""
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.ref cimport Py_INCREF, PyObject
from cpython.long cimport PyLong_AsLong
from libc.stdlib cimport calloc, malloc, realloc, free
from bisect import bisect_left
from heapq import heappush
from math import gcd


cdef class _Buffers:
    """Scratch arrays for one word: the rebuilt word as positions in the old one
    (-1: the merged token); the pairs it gains and loses (indices into the merge's _PairTable)
    and where each gained one starts in the rebuilt word."""
    cdef Py_ssize_t* src
    cdef Py_ssize_t* created
    cdef Py_ssize_t* created_at
    cdef Py_ssize_t* lost
    cdef Py_ssize_t cap

    def __cinit__(self):
        self.cap = 0
        self.src = NULL
        self.created = NULL
        self.created_at = NULL
        self.lost = NULL

    cdef int grow(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t cap = max(n, 2 * self.cap, 64)
        self.src = <Py_ssize_t*>_grown(self.src, cap * sizeof(Py_ssize_t))
        self.created = <Py_ssize_t*>_grown(self.created, 2 * cap * sizeof(Py_ssize_t))
        self.created_at = <Py_ssize_t*>_grown(self.created_at, 2 * cap * sizeof(Py_ssize_t))
        self.lost = <Py_ssize_t*>_grown(self.lost, 2 * cap * sizeof(Py_ssize_t))
        self.cap = cap
        return 0

    def __dealloc__(self):
        free(self.src)
        free(self.created)
        free(self.created_at)
        free(self.lost)


cdef void* _grown(void* p, size_t size) except NULL:
    cdef void* q = realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef class _PairTable:
    """The pairs one merge touches, in first-touch order: each one's tuple (made once, however
    many words it is in) and count delta summed in C. Open addressing on (left << 32 | right)."""
    cdef Py_ssize_t* table      # slot -> index + 1 (0: empty)
    cdef Py_ssize_t mask
    cdef int shift
    cdef unsigned long long* keys
    cdef long long* deltas
    cdef Py_ssize_t n, cap
    cdef list tuples
    cdef list lists             # each pair's pair_words list once looked up (_UNSEEN: not yet)

    def __cinit__(self):
        self.mask = 1023
        self.shift = 64 - 10
        self.table = <Py_ssize_t*>calloc(1024, sizeof(Py_ssize_t))
        self.cap = 256
        self.keys = <unsigned long long*>malloc(self.cap * sizeof(unsigned long long))
        self.deltas = <long long*>malloc(self.cap * sizeof(long long))
        if self.table == NULL or self.keys == NULL or self.deltas == NULL:
            raise MemoryError()
        self.n = 0
        self.tuples = []
        self.lists = []

    def __dealloc__(self):
        free(self.table)
        free(self.keys)
        free(self.deltas)

    cdef Py_ssize_t slot(self, unsigned long long key):
        cdef Py_ssize_t h = <Py_ssize_t>((key * 0x9E3779B97F4A7C15ULL) >> self.shift)
        cdef Py_ssize_t s
        while True:
            s = self.table[h]
            if s == 0 or self.keys[s - 1] == key:
                return h
            h = (h + 1) & self.mask

    cdef Py_ssize_t index(self, object x_obj, long x, object y_obj, long y) except -1:
        cdef unsigned long long key = (<unsigned long long>x << 32) | <unsigned long long><unsigned int>y
        cdef Py_ssize_t h = self.slot(key), i, size
        if self.table[h]:
            return self.table[h] - 1
        if self.n == self.cap:
            self.cap *= 2
            self.keys = <unsigned long long*>_grown(self.keys, self.cap * sizeof(unsigned long long))
            self.deltas = <long long*>_grown(self.deltas, self.cap * sizeof(long long))
        i = self.n
        self.keys[i] = key
        self.deltas[i] = 0
        self.tuples.append((x_obj, y_obj))
        self.lists.append(_UNSEEN)
        self.table[h] = i + 1
        self.n += 1
        if 2 * self.n > self.mask:   # keep the table at most half full
            size = 2 * (self.mask + 1)
            free(self.table)
            self.table = <Py_ssize_t*>calloc(size, sizeof(Py_ssize_t))
            if self.table == NULL:
                raise MemoryError()
            self.mask = size - 1
            self.shift -= 1
            for i in range(self.n):
                self.table[self.slot(self.keys[i])] = i + 1
        return i


_UNSEEN = object()


cdef struct _Slot:
    Py_ssize_t start     # where the word's symbols begin in Words.syms
    Py_ssize_t length    # how many it has now (merges only shorten a word, in place)
    long long count


cdef class Words:
    """The trainer's words for the compiled loop: every word's symbol ids in one C array, each word
    in its own slot, and each word's slot (start, length, count) in another. A merge reads a word
    straight from these; as Python lists (a list object, its item array, an int object for its
    count), each word a merge visits cost several cache misses, most of merge_words' time on
    the 8 MB corpora. Read as a sequence (len, words[i], iteration) it gives the lists the pure-
    Python trainer keeps, for the few places that read a whole word (_first_occurrence, the final
    tokens). `ids` holds one int object per symbol id, so pair tuples share them."""
    cdef int* syms
    cdef _Slot* slots
    cdef readonly Py_ssize_t n
    cdef list ids

    def __cinit__(self, list words, list counts):
        cdef Py_ssize_t total = 0, wi, k, start = 0, top = 0
        cdef list w
        self.n = len(words)
        for w in words:
            total += PyList_GET_SIZE(w)
        self.syms = <int*>malloc(max(total, 1) * sizeof(int))
        self.slots = <_Slot*>malloc(max(self.n, 1) * sizeof(_Slot))
        if self.syms == NULL or self.slots == NULL:
            raise MemoryError()
        for wi in range(self.n):
            w = <list>words[wi]
            self.slots[wi].start = start
            self.slots[wi].length = PyList_GET_SIZE(w)
            self.slots[wi].count = counts[wi]
            for k in range(PyList_GET_SIZE(w)):
                self.syms[start + k] = PyLong_AsLong(<object>PyList_GET_ITEM(w, k))
                top = max(top, self.syms[start + k])
            start += PyList_GET_SIZE(w)
        self.ids = list(range(top + 1))

    def __dealloc__(self):
        free(self.syms)
        free(self.slots)

    def __len__(self):
        return self.n

    def __getitem__(self, Py_ssize_t wi):
        if wi < 0 or wi >= self.n:
            raise IndexError(wi)
        cdef int* syms = self.syms + self.slots[wi].start
        return [self._id(syms[k]) for k in range(self.slots[wi].length)]

    cdef object _id(self, long x):
        while PyList_GET_SIZE(self.ids) <= x:
            self.ids.append(PyList_GET_SIZE(self.ids))
        return <object>PyList_GET_ITEM(self.ids, x)


def merge_words(list word_list, Words words, object a_obj, object b_obj, object ab_obj,
                dict pair_words, dict first_key, list units, bint track_first, Py_ssize_t max_changed,
                changed_word):
    """See core/trainer.py, _Trainer._merge_words (there with the words and counts as lists). Symbol
    ids must fit in 31 bits and the count deltas in 63 (the trainer checks its total tokens
    before choosing this path)."""
    cdef long a = a_obj, b = b_obj, ab = ab_obj, prev
    cdef long long c_ll, merged_ll = 0
    cdef set recompute = set()
    cdef set earlier = set()
    cdef list changed = []
    cdef Py_ssize_t changed_total = 0
    cdef _Buffers buf = _Buffers()
    cdef _PairTable table = _PairTable()
    cdef Py_ssize_t n, i, j, k, nn, occ, merged_until, wi, t, x, ncreated, nlost
    cdef bint has_a
    cdef int* syms
    cdef _Slot* slot
    cdef Py_ssize_t* src
    cdef list lst, tuples = table.tuples, lists = table.lists
    cdef object q, prev_obj, nxt, cur, cand, o, before
    a_obj, b_obj, ab_obj = words._id(a), words._id(b), words._id(ab)
    for wi_obj in word_list:
        wi = wi_obj
        slot = &words.slots[wi]
        syms = words.syms + slot.start
        n = slot.length
        has_a = False
        for k in range(n):
            if syms[k] == a:
                has_a = True
                break
        if not has_a:
            continue  # stale index entry
        if n > buf.cap:
            buf.grow(n)
        src = buf.src
        c_ll = slot.count
        ncreated = 0
        nlost = 0
        nn = 0
        i = 0
        occ = 0
        merged_until = -1
        while True:
            j = i
            while j < n and syms[j] != a:
                j += 1
            if j >= n:
                break
            if j + 1 >= n or syms[j + 1] != b:
                for k in range(i, j + 1):
                    src[nn] = k
                    nn += 1
                i = j + 1
                continue
            if j > i:
                for k in range(i, j):
                    src[nn] = k
                    nn += 1
            elif j == merged_until and j + 1 < n:
                ncreated -= 1  # `a b a b`: the (ab, a) the last merge made is merged away
            if nn:
                x = src[nn - 1]
                prev = syms[x] if x >= 0 else ab
                prev_obj = words._id(prev)
                t = table.index(prev_obj, prev, a_obj, a)
                table.deltas[t] -= c_ll
                buf.lost[nlost] = t
                nlost += 1
                t = table.index(prev_obj, prev, ab_obj, ab)
                table.deltas[t] += c_ll
                buf.created[ncreated] = t
                buf.created_at[ncreated] = nn - 1
                ncreated += 1
            if j + 2 < n:
                nxt = words._id(syms[j + 2])
                t = table.index(b_obj, b, nxt, syms[j + 2])
                table.deltas[t] -= c_ll
                buf.lost[nlost] = t
                nlost += 1
                t = table.index(ab_obj, ab, nxt, syms[j + 2])
                table.deltas[t] += c_ll
                buf.created[ncreated] = t
                buf.created_at[ncreated] = nn
                ncreated += 1
            src[nn] = -1
            nn += 1
            i = merged_until = j + 2
            occ += 1
        if not occ:
            continue  # stale index entry
        for k in range(i, n):
            src[nn] = k
            nn += 1
        before = words[wi] if len(changed) < max_changed else None
        # rebuilt in place: src[k] >= k, so each symbol is read before its place is written
        for k in range(nn):
            x = src[k]
            syms[k] = ab if x < 0 else syms[x]
        slot.length = nn
        changed_total += 1
        merged_ll += occ * c_ll
        if before is not None:
            changed.append(changed_word(tuple(before), tuple(words[wi]), slot.count))
        for t in range(ncreated):
            x = buf.created[t]
            o = <object>PyList_GET_ITEM(lists, x)
            if o is _UNSEEN:   # first time this merge: look the pair's word list up once
                q = <object>PyList_GET_ITEM(tuples, x)
                o = pair_words.get(q)
                if o is None:
                    o = [wi_obj]
                    pair_words[q] = o
                    lists[x] = o
                    continue
                lists[x] = o
            lst = <list>o
            x = lst[PyList_GET_SIZE(lst) - 1]
            if x < wi:
                lst.append(wi_obj)
            elif x != wi:  # a reused token id: keep the list sorted
                k = bisect_left(lst, wi_obj)
                if k == len(lst) or lst[k] != wi_obj:
                    lst.insert(k, wi_obj)
        if track_first:
            for t in range(ncreated):
                q = <object>PyList_GET_ITEM(tuples, buf.created[t])
                cur = first_key.get(q)
                if cur is None or wi <= cur[0]:
                    k = buf.created_at[t]
                    o = 0
                    for j in range(k):
                        o += units[syms[j]]
                    cand = (wi_obj, o)
                    if cur is None or cand < cur:
                        first_key[q] = cand
                        earlier.add(q)
            for t in range(nlost):
                q = <object>PyList_GET_ITEM(tuples, buf.lost[t])
                cur = first_key.get(q)
                if cur is not None and cur[0] == wi_obj:
                    recompute.add(q)
    cdef dict changes = {}
    for t in range(table.n):
        changes[<object>PyList_GET_ITEM(tuples, t)] = table.deltas[t]
    return changes, recompute, earlier, changed, changed_total, merged_ll


def count_initial_pairs(list words, list counts, list freq, dict pair_count, dict pair_words, dict first_key,
                        bint track_first):
    """See core/trainer.py, _Trainer._count_pairs, called once on empty dicts. The counts are
    summed in C (a _PairTable, as a merge sums its changes; symbol frequencies in a C array), so
    each distinct pair gets one tuple and one pair_count entry, written in first-occurrence order
    as the Python loop writes them; pair_words and first_key are filled as it fills them."""
    if pair_count or pair_words or first_key:
        raise ValueError("count_initial_pairs starts from empty dicts")
    cdef Py_ssize_t wi, off, n, t, known, nfreq = len(freq)
    cdef long x, y
    cdef long long c_ll
    cdef list syms, lst, tuples, lists
    cdef object wi_obj, x_obj, y_obj, q
    cdef _PairTable table = _PairTable()
    cdef long long* total = <long long*>calloc(nfreq + 1, sizeof(long long))
    if total == NULL:
        raise MemoryError()
    tuples, lists = table.tuples, table.lists
    try:
        for wi in range(len(words)):
            wi_obj = wi   # one int object per word, shared by all its entries (as in Python)
            syms = <list>words[wi]
            c_ll = counts[wi]
            n = PyList_GET_SIZE(syms)
            if n == 0:
                continue
            y_obj = <object>PyList_GET_ITEM(syms, 0)
            y = PyLong_AsLong(y_obj)
            total[y] += c_ll
            for off in range(n - 1):
                x_obj, x = y_obj, y
                y_obj = <object>PyList_GET_ITEM(syms, off + 1)
                y = PyLong_AsLong(y_obj)
                total[y] += c_ll
                known = table.n
                t = table.index(x_obj, x, y_obj, y)
                if t == known:   # a new pair: its entries, in first-occurrence order
                    q = <object>PyList_GET_ITEM(tuples, t)
                    lst = [wi_obj]
                    lists[t] = lst
                    pair_words[q] = lst
                    if track_first:
                        first_key[q] = (wi_obj, off)  # all initial symbols span one unit
                else:
                    lst = <list>PyList_GET_ITEM(lists, t)
                    if lst[PyList_GET_SIZE(lst) - 1] is not wi_obj:
                        lst.append(wi_obj)
                table.deltas[t] += c_ll
        for t in range(table.n):
            pair_count[<object>PyList_GET_ITEM(tuples, t)] = table.deltas[t]
        for t in range(nfreq):
            if total[t]:
                freq[t] += total[t]
    finally:
        free(total)


def heap_entries(dict pair_value, bint likelihood, int rule, dict first_key, list vocab, descending):
    """The queue's first entries, one per pair in pair_value's order, each as _Trainer._entry builds
    it (rule and descending as for revalue); the caller heapifies them. At the trainer's start every
    pair gets one (165,000 on 8 MB of Chinese and English), and WordPiece's exact tiebreak is the
    compiled Descending here too."""
    cdef list entries = []
    cdef object q, v
    for q, v in pair_value.items():
        entries.append(_entry(q, v, likelihood, rule, first_key, vocab, descending))
    return entries


def pairs_by_symbol(dict pair_count, dict symbol_pairs):
    """_Trainer._count_initial_pairs' map of symbol -> the pairs holding it (likelihood), filled in
    place in the same order as its loop."""
    cdef object q, x, y
    cdef set held
    for q in pair_count:
        x, y = q
        held = symbol_pairs.get(x)
        if held is None:
            held = symbol_pairs[x] = set()
        held.add(q)
        held = symbol_pairs.get(y)
        if held is None:
            held = symbol_pairs[y] = set()
        held.add(q)


cdef class Descending:
    """core/trainer.py's _Descending compiled: a reduced fraction n/d that sorts largest first,
    compared exactly. A likelihood heap entry holds one (the exact tiebreak after the float), and
    WordPiece's merges revalue ~100 pairs each (800,000 entries on the KJV): made and compared in C
    they cost a fraction of the Python class's calls. Its order is the Python class's, so entries of
    either kind (_Trainer._entry still makes the Python one) compare right against each other."""
    cdef readonly tuple value

    def __init__(self, tuple value):
        self.value = value

    def __lt__(self, other):
        cdef tuple mine = self.value, theirs = other.value
        return mine[0] * theirs[1] > theirs[0] * mine[1]

    def __eq__(self, other):
        return self.value == other.value


cdef int _revalue_one(object q, object c, object earlier, bint queue, dict pair_value, dict hist, list freq,
                      list heap, bint likelihood, object min_freq, int rule, dict first_key, list vocab,
                      object descending) except -1:
    """One pair of _Trainer._revalue_pairs, given its current count c (0: gone)."""
    cdef object old, d, g, v
    cdef bint better
    old = pair_value.pop(q, None)
    if old is not None:
        _hist_drop(hist, old)
    if c < min_freq:
        return 0
    if likelihood:
        d = freq[q[0]] * freq[q[1]]
        g = gcd(c, d)
        v = (c // g, d // g)
        better = old is None or v[0] * old[1] > old[0] * v[1]
    else:
        v = c
        better = old is None or c > old
    pair_value[q] = v
    hist[v] = hist.get(v, 0) + 1
    if queue and (better or q in earlier):
        heappush(heap, _entry(q, v, likelihood, rule, first_key, vocab, descending))
    return 0


def revalue(pairs, earlier, bint queue, dict pair_value, dict pair_count, dict hist, list freq, list heap,
            bint likelihood, min_freq, int rule, dict first_key, list vocab, descending):
    """See core/trainer.py, _Trainer._revalue_pairs; a heap entry is built here as _Trainer._entry
    builds it (rule: the index in TIE_RULES = first, hf, lexical; descending: _Descending)."""
    for q in pairs:
        _revalue_one(q, pair_count.get(q, 0), earlier, queue, pair_value, hist, freq, heap, likelihood,
                     min_freq, rule, first_key, vocab, descending)


def settle_merge(dict changes, object p, tuple symbols, set earlier, set recompute, first_occurrence,
                 dict pair_count, dict pair_words, dict first_key, dict symbol_pairs, dict pair_value, dict hist,
                 list freq, list heap, bint likelihood, min_freq, int rule, list vocab, descending):
    """What core/trainer.py's _Trainer.merge does after merge_words, in one pass over the changes
    instead of three (_apply_changes, the `recompute` loop, _revalue of the dirty set): each pair's
    count is updated, its first occurrence looked up again if it moved (first_occurrence), and its
    value revalued at once, so each pair's dict entries are found while they are in cache. Then
    the merged pair p, and for likelihood the other pairs of the three symbols (`symbols`: a, b,
    ab) whose frequency moved. Every pair is revalued once, as in the dirty set; revaluing a pair
    reads only its own count, first occurrence and symbol frequencies, so the order does not change
    the result (heap entries are totally ordered)."""
    cdef object q, d, m, n, s
    cdef set moved
    cdef bint track_first = bool(recompute)
    if pair_value is pair_count:
        _settle_counts(changes, p, earlier, recompute, first_occurrence, pair_count, pair_words, first_key, hist,
                       heap, rule, vocab)
        return
    pair_count.pop(p, None)
    first_key.pop(p, None)
    for q, d in changes.items():
        m = pair_count.get(q)
        n = (0 if m is None else m) + d
        if n > 0:
            if likelihood and m is None:
                symbol_pairs.setdefault(q[0], set()).add(q)
                symbol_pairs.setdefault(q[1], set()).add(q)
            pair_count[q] = n
            if track_first and q in recompute:
                first_key[q] = first_occurrence(q)
        else:
            pair_count.pop(q, None)
            pair_words.pop(q, None)
            first_key.pop(q, None)
            if likelihood:
                symbol_pairs.get(q[0], set()).discard(q)
                symbol_pairs.get(q[1], set()).discard(q)
            n = 0
        _revalue_one(q, n, earlier, True, pair_value, hist, freq, heap, likelihood, min_freq, rule, first_key,
                     vocab, descending)
    _revalue_one(p, 0, earlier, True, pair_value, hist, freq, heap, likelihood, min_freq, rule, first_key, vocab,
                 descending)
    if likelihood:
        moved = set()
        for s in symbols:
            moved.update(symbol_pairs.get(s, ()))
        for q in moved:
            if q not in changes and q != p:
                _revalue_one(q, pair_count.get(q, 0), earlier, True, pair_value, hist, freq, heap, likelihood,
                                 min_freq, rule, first_key, vocab, descending)


cdef int _settle_counts(dict changes, object p, set earlier, set recompute, first_occurrence, dict pair_count,
                        dict pair_words, dict first_key, dict hist, list heap, int rule, list vocab) except -1:
    """settle_merge where every pair is eligible and its value is its count (counts, not scores;
    minimum frequency 1): the trainer then keeps one dict for both (pair_value is pair_count), and
    each pair's old value is its count before the merge. Half the dict lookups of the general case."""
    cdef object q, d, m, n
    cdef bint track_first = bool(recompute)
    m = pair_count.pop(p, None)
    first_key.pop(p, None)
    if m is not None:
        _hist_drop(hist, m)
    for q, d in changes.items():
        m = pair_count.get(q)
        n = (0 if m is None else m) + d
        if m is not None:
            _hist_drop(hist, m)
        if n <= 0:
            if m is not None:
                del pair_count[q]
            pair_words.pop(q, None)
            first_key.pop(q, None)
            continue
        pair_count[q] = n
        hist[n] = hist.get(n, 0) + 1
        if track_first and q in recompute:
            first_key[q] = first_occurrence(q)
        if m is None or n > m or q in earlier:
            heappush(heap, _entry(q, n, False, rule, first_key, vocab, None))
    return 0


cdef inline int _hist_drop(dict hist, object v) except -1:
    cdef object n = hist[v] - 1
    if n:
        hist[v] = n
    else:
        del hist[v]
    return 0


cdef inline tuple _entry(object q, object v, bint likelihood, int rule, dict first_key, list vocab,
                         object descending):
    """_Trainer._entry: (-value, exact tiebreak, tie key 1, tie key 2, left, right) for pair q of
    value v (a count, or for likelihood a reduced (numerator, denominator))."""
    cdef object k = _tie_key(q, rule, first_key, vocab)
    if likelihood:
        return (-v[0] / v[1], descending(v), k[0], k[1], q[0], q[1])
    return (-v, 0, k[0], k[1], q[0], q[1])


cdef inline object _tie_key(object q, int rule, dict first_key, list vocab):
    """_Trainer._tie_key (rule: the index in TIE_RULES = first, hf, lexical)."""
    if rule == 0:
        return first_key[q]
    if rule == 1:
        return q
    return (vocab[q[0]], vocab[q[1]])
