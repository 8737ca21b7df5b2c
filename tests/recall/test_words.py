"""The words of a prompt (kgraph.recall.words): phrases, and the items that share enough
telling words with it."""

from __future__ import annotations

import random
from typing import cast

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall.items import RecallItem, load_items
from kgraph.recall.words import MIN_LEXICAL, phrases, select_lexical, term_weights


def test_phrases_are_neighbouring_telling_words_in_either_order() -> None:
    assert phrases("the post-commit hook") == {
        frozenset({"post", "commit"}),
        frozenset({"commit", "hook"}),
    }
    assert phrases("webhook payment") == phrases("payment webhook")
    assert phrases("status of git") == set()  # a stopword between them breaks the pair


def test_leaving_common_words_out_of_the_word_query_loses_no_hit(
    db: Database, conn: ReadConnection
) -> None:
    # Words from very common to rare; the query leaves out the least telling ones, which a
    # passing hit can never share alone: the same hits pass as by brute force.
    words = ["alpha", "bravo", "delta", "kilo", "lima", "oscar", "tango", "zulu"]
    rng = random.Random(3)
    texts = []
    for n in range(80):
        chosen = [w for i, w in enumerate(words) if rng.random() < 0.9 / (i + 1)]
        texts.append(" ".join(["note", *chosen, f"case{n}"]))
        add_item(db, texts[-1])
    ids = {t: i.id for t, i in zip(texts, recall_items(conn), strict=True)}
    for prompt in (words[:3], words[:5], words[2:], words):
        weights = term_weights(conn, prompt, len(texts))
        found = {r.item.id for r in select_lexical(conn, prompt, weights, set())}
        expected = {
            ids[t]
            for t in texts
            if len(shared := weights.keys() & set(t.split())) >= 2
            and sum(weights[w] for w in shared) >= MIN_LEXICAL
        }
        assert found == expected


def recall_items(conn: ReadConnection) -> list[RecallItem]:
    rows = conn.execute("SELECT id FROM entities WHERE type = 'Learning'").fetchall()
    found = load_items(conn, [r[0] for r in rows])
    return sorted(found.values(), key=lambda i: int(i.content.rsplit("case", 1)[1]))


def test_a_sessions_words_are_counted_once_then_handed_on(
    db: Database, conn: ReadConnection
) -> None:
    from kgraph.recall.words import TaskWords, stem, task_words, word_key

    for n in range(20):
        add_item(db, f"the scheduler drains the queue in batch {n}")
    add_item(db, "the scheduler retries a dead letter")
    keys = task_words("why does the scheduler keep a dead letter?")
    counted = TaskWords(conn, keys)
    value = counted.shared("a dead letter in the scheduler")
    assert value > 0 and set(counted.rarity) == {
        word_key(stem(w)) for w in ("dead", "letter", "scheduler")
    }
    # A later hook of the session takes the rarities handed on and counts nothing (it has
    # no store to count in here); a word it was told about weighs what it was told.
    told = {**counted.rarity, word_key("dead"): 5.0}
    later = TaskWords(cast(ReadConnection, None), keys, known=told)
    again = later.shared("a dead letter in the scheduler")
    assert again == value - counted.rarity[word_key("dead")] + 5.0
