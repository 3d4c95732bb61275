"""Benevolent: the policy plug point (see policies/__init__.py).

Policies by id (the order of policies.POLICIES["benevolent"]):
    0 random      uniform over the legal actions
    1 heuristic   searches each turn whole and scores its ends with a linear evaluation
                  (policies/benevolent/heuristic.py; theta = its named weights)
    2 search      flat Monte Carlo over the heuristic's best turn plans, the heuristic as rollout
                  policy (policies/benevolent/search.py; theta = the heuristic's weights, then
                  budget, candidates, horizon, noise)
    3 tuned       the heuristic with the weights `boardsim tune benevolent` installed in
                  policies/benevolent/tuned.json (a one-line error while none is installed)
    4 learned     the heuristic's 8 best plans with distinct ends, the one a learned value rates
                  highest, less a repetition term (policies/benevolent/learned.py; the model is
                  learned.json, a one-line error while none is installed)
    5 expert      rollouts by the learned player over its 4 best plans (policies/benevolent/expert.py)
"""
from simcore.benevolent import GAME

from .. import POLICIES
from ..plug import Policy, plug_point
from ..tuned import tuned_theta
from . import expert as _x
from . import heuristic as _h
from . import learned as _l
from . import search as _s

# the ids: positions in policies.POLICIES, the one table of names (compile-time constants here)
RANDOM, HEURISTIC, SEARCH, TUNED, LEARNED, EXPERT = (
    POLICIES[GAME.name].index(n) for n in ("random", "heuristic", "search", "tuned", "learned", "expert"))
THETA_SIZE = max(_s.N_THETA, _l.THETA_SIZE)   # the widest theta of any Benevolent policy


# the policy table (policies/plug.py), in id order; about 100 KB of scratch a seat for the planners
TABLE = (
    Policy("random"),
    Policy("heuristic", _h.heuristic_action, _h.heuristic_reset, _h.WS_SIZE, lambda: _h.THETA_DEFAULT, _h.THETA_NAMES),
    Policy("search", _s.search_action, _s.search_reset, _s.WS_SIZE, lambda: _s.THETA_DEFAULT, _s.THETA_NAMES),
    Policy("tuned", _h.heuristic_action, _h.heuristic_reset, _h.WS_SIZE, lambda: tuned_theta(GAME), _h.THETA_NAMES),
    Policy("learned", _l.learned_action, _l.learned_reset, _l.WS_SIZE, _l.learned_theta, net=_l.learned_net),
    Policy("expert", _x.expert_action, _x.expert_reset, _x.WS_SIZE, _x.expert_theta, net=_l.learned_net),
)
assert tuple(pol.name for pol in TABLE) == POLICIES[GAME.name]
# WS_SIZE: int32 scratch entries per seat (the widest); NET_SIZE: a network array's floats; THETA_NAMES:
# each policy's settable parameters; NET_POLICIES: the policies that read a network (policies/plug.py)
PLUG = plug_point(GAME.name, TABLE, THETA_SIZE, _l.NET_SIZE)
decide, reset, ws_size, default_theta, seat_nets, played_nets, WS_SIZE, NET_SIZE, THETA_NAMES, NET_POLICIES = PLUG
