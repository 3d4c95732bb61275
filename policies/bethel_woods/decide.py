"""Bethel Woods: the policy plug point (see policies/__init__.py).

Policies by id (the order of policies.POLICIES["bethel_woods"]):
    0 random       uniform over the legal actions
    1 heuristic    plans each turn whole and scores the positions with a linear evaluation
                   (policies/bethel_woods/heuristic.py; theta = its named weights)
    2 search       determinized flat Monte Carlo over the heuristic's best few turn plans, heuristic
                   rollouts (policies/bethel_woods/search.py; theta = the weights, budget, candidates)
    3 clairvoyant  the same search handed the game's chance key: NOT A PLAYER, a measuring stick.
                   The arena passes it the chance key in place of its decision key (this policy only)
    4 tuned        the heuristic with the weights tuned by `boardsim tune` (policies/bethel_woods/tuned.json)
    5 learned      the heuristic's best plans chosen by a learned value (policies/bethel_woods/learned.py;
                   the model `boardsim train bethel-woods` installs in learned.json): the studies' player
    6 expert       successive halving over the learned player's best plans, learned rollouts
                   (policies/bethel_woods/expert.py): the best honest player, slow
"""
from simcore.bethel_woods import GAME

from .. import POLICIES
from ..plug import Policy, plug_point
from ..tuned import tuned_theta
from . import expert as _x
from . import heuristic as _h
from . import learned as _l
from . import search as _s

# the ids: positions in policies.POLICIES, the one table of names (compile-time constants here)
RANDOM, HEURISTIC, SEARCH, CLAIRVOYANT, TUNED, LEARNED, EXPERT = (
    POLICIES[GAME.name].index(n) for n in ("random", "heuristic", "search", "clairvoyant", "tuned", "learned", "expert"))
THETA_SIZE = max(len(_h.THETA_DEFAULT), _s.THETA_SIZE, _l.THETA_SIZE)   # the widest theta of any Bethel Woods policy


# the policy table (policies/plug.py), in id order; 120 KB of scratch a seat for the search
TABLE = (
    Policy("random"),
    Policy("heuristic", _h.heuristic_action, _h.heuristic_reset, _h.WS_SIZE, lambda: _h.THETA_DEFAULT, _h.THETA_NAMES),
    Policy("search", _s.search_action, _s.search_reset, _s.WS_SIZE, _s.default_theta, _s.THETA_NAMES),
    Policy("clairvoyant", _s.clairvoyant_action, _s.search_reset, _s.WS_SIZE, _s.default_theta, _s.THETA_NAMES),
    Policy("tuned", _h.heuristic_action, _h.heuristic_reset, _h.WS_SIZE, lambda: tuned_theta(GAME), _h.THETA_NAMES),
    Policy("learned", _l.learned_action, _l.learned_reset, _l.WS_SIZE, _l.learned_theta, net=_l.learned_net),
    Policy("expert", _x.expert_action, _x.expert_reset, _x.WS_SIZE, _x.expert_theta, net=_l.learned_net),
)
assert tuple(pol.name for pol in TABLE) == POLICIES[GAME.name]
# WS_SIZE: int32 scratch entries per seat (the widest); NET_SIZE: a network array's floats; THETA_NAMES:
# each policy's settable parameters; NET_POLICIES: the policies that read a network (policies/plug.py)
PLUG = plug_point(GAME.name, TABLE, THETA_SIZE, _l.NET_SIZE)
decide, reset, ws_size, default_theta, seat_nets, played_nets, WS_SIZE, NET_SIZE, THETA_NAMES, NET_POLICIES = PLUG
