"""Small compiled helpers and codes shared by every game's engine."""
import numba

# current_player(s) codes besides a seat number (OpenSpiel's kChancePlayerId / kTerminalPlayerId)
PLAYER_CHANCE = -1
PLAYER_TERMINAL = -2


@numba.njit(cache=True, _nrt=False)
def push(acts, n, a):
    """Append action a to the legal-action list acts[:n]; return the new length."""
    acts[n] = a
    return n + 1


@numba.njit(cache=True)
def fill_mask(acts, n, mask):
    """The boolean legal-action mask of the list acts[:n] (the games' Python-facing legal_mask)."""
    mask[:] = False
    for i in range(n):
        mask[acts[i]] = True
    return n
