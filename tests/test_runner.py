"""Chunks sized by time and blocks sized by chunk (arena/runner.py)."""
from arena.runner import MAX_BLOCK, MAX_CHUNK, block_size, next_chunk, run_chunks


def test_chunks_grow_toward_the_target_time_and_no_faster():
    assert next_chunk(8, 0.0001, 8, target=1.0) == 32           # fast games: at most 4x growth
    assert next_chunk(8, 2.0, 8, target=1.0) == 4               # slow games: shrink to ~1 s of play
    assert next_chunk(100, 10.0, 100, target=1.0) == 10
    assert next_chunk(1 << 20, 0.001, 1 << 17, target=1.0) == MAX_CHUNK
    assert next_chunk(1, 100.0, 1) == 1                         # never below one game


def test_blocks_keep_every_thread_busy():
    assert block_size(8, 2) == 1 and block_size(1000, 2) == 125 and block_size(10 ** 6, 2) == MAX_BLOCK


def test_time_sized_chunks_cover_every_game_once():
    seen = []

    def play(start, count):
        return list(range(start, start + count))

    run_chunks(5000, play, lambda start, count, r: seen.extend(r), threads=1)
    assert seen == list(range(5000))
