#!/usr/bin/env python3
"""Reference values for the privacy accountant's unit tests (test_accountant.c).

Computed from the formulas of the papers, written out again here with the
Python standard library only, without reading src/dp: a wrong formula or a
wrong rounding direction in src/dp/dp_accountant.c or dp_noise.c shows up as
a difference.  Prints a C header on stdout:

    python3 tests/unit/accountant_reference.py > tests/unit/accountant_reference.h

(`make -C tests/unit run` regenerates it and fails when the committed header
differs.)

Formulas:
  * Canonne, Kamath, Steinke 2020 ("The Discrete Gaussian for Differential
    Privacy"), Proposition 12: (alpha, tau)-RDP implies (eps, delta)-DP with
    delta = exp((alpha-1)(tau-eps)) / (alpha-1) * (1 - 1/alpha)^alpha.
    For rho-zCDP, tau = alpha rho and the best alpha is taken.
  * The exact privacy profile of the Gaussian mechanism (Balle and Wang 2018,
    Theorem 8): with mu = Delta / sigma,
    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu); a Gaussian of
    sensitivity Delta is rho-zCDP with rho = mu^2 / 2 (Bun, Steinke 2016).
  * Bun and Steinke 2016, Proposition 1.3: rho-zCDP implies (eps, delta)-DP
    with delta = exp(-(eps - rho)^2 / (4 rho)) for eps > rho.
  * Randomized response is the worst case of pure eps-DP at every Renyi order
    (Bun and Steinke 2016, proof of Proposition 3.3): D_alpha <= 1/(alpha-1)
    log((e^(alpha eps) + e^eps e^(-alpha eps)) / (e^eps + 1)).
"""
import math

PHI_SCALE = 1.0 / math.sqrt(2.0)


def phi(x):
    """standard normal CDF"""
    return 0.5 * math.erfc(-x * PHI_SCALE)


def log_k(alpha):
    """log((1 - 1/alpha)^alpha / (alpha - 1))"""
    return alpha * math.log1p(-1.0 / alpha) - math.log(alpha - 1.0)


def conversion(alpha, delta):
    """K(alpha, delta): eps = tau + K converts (alpha, tau)-RDP to (eps, delta)-DP"""
    return (log_k(alpha) - math.log(delta)) / (alpha - 1.0)


def zcdp_log_delta(rho, eps, alpha):
    return (alpha - 1.0) * (alpha * rho - eps) + log_k(alpha)


def best(f, lo, hi, steps=4000):
    """minimum of f over a log grid of alpha - 1 in [lo, hi], then refined"""
    best_x, best_v = None, math.inf
    for i in range(steps + 1):
        x = 1.0 + math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * i / steps)
        v = f(x)
        if v < best_v:
            best_x, best_v = x, v
    a, b = 1.0 + (best_x - 1.0) * 0.99, 1.0 + (best_x - 1.0) * 1.01
    for _ in range(200):
        m1, m2 = a + (b - a) / 3, b - (b - a) / 3
        if f(m1) < f(m2):
            b = m2
        else:
            a = m1
    return min(best_v, f((a + b) / 2))


def zcdp_delta(rho, eps):
    return math.exp(best(lambda a: zcdp_log_delta(rho, eps, a), 1e-6, 1e6))


def zcdp_epsilon(rho, delta):
    lo, hi = 0.0, rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)) + 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if zcdp_delta(rho, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def gaussian_exact_delta(rho, eps):
    mu = math.sqrt(2.0 * rho)
    return phi(mu / 2 - eps / mu) - math.exp(eps) * phi(-mu / 2 - eps / mu)


def bun_steinke_delta(rho, eps):
    return math.exp(-(eps - rho) ** 2 / (4.0 * rho))


def analytic_sigma(eps, delta):
    """smallest sigma (sensitivity 1) with the Balle-Wang delta at most delta"""
    def d(sigma):
        return phi(1 / (2 * sigma) - eps * sigma) - \
            math.exp(eps) * phi(-1 / (2 * sigma) - eps * sigma)
    lo, hi = 1e-6, 1.0
    while d(hi) > delta:
        hi *= 2
    for _ in range(300):
        mid = (lo + hi) / 2
        if d(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def gaussian_rho(eps, delta):
    """the zCDP of anon_dp's Gaussian plans: sigma calibrated for
    eps (1 - 2^-12) and delta (1 - 2^-20) (1 - 2^-30) (doc/noise.md)"""
    sigma = analytic_sigma(eps * (1 - 2.0 ** -12), delta * (1 - 2.0 ** -20) * (1 - 2.0 ** -30))
    return 1.0 / (2.0 * sigma * sigma)


def rr_renyi(eps, alpha):
    return math.log((math.exp(alpha * eps) + math.exp(eps - alpha * eps)) /
                    (math.exp(eps) + 1.0)) / (alpha - 1.0)


# the epsilon-shares of each building block's independent parts (doc/noise.md §6, §10)
HIST = 0.5      # automatic bounds: the histogram's half
TREE = 4        # quantile tree height
ROWS = 0.1      # row-level quantile: histogram of sample sizes
BLOCK_PARTS = {
    "DP_BLOCK_PURE": [1.0],
    "DP_BLOCK_HALVES": [0.5, 0.5],
    "DP_BLOCK_THIRDS": [1 / 3] * 3,
    "DP_BLOCK_TREE": [1 / TREE] * TREE,
    "DP_BLOCK_AUTO_SUM": [HIST, 1 - HIST],
    "DP_BLOCK_AUTO_MEAN": [HIST, (1 - HIST) / 2, (1 - HIST) / 2],
    "DP_BLOCK_AUTO_VARIANCE": [HIST] + [(1 - HIST) / 3] * 3,
    "DP_BLOCK_AUTO_TREE": [HIST] + [(1 - HIST) / TREE] * TREE,
    "DP_BLOCK_ROWS_ADAPTIVE": [ROWS, 1 - ROWS],
    "DP_BLOCK_SELECTED_MEAN": [0.5, 0.5],
}


def block_rho(parts, eps, groups, grouped):
    if grouped:   # groups independent partitions, each a pure block of eps
        return groups * sum((s * eps) ** 2 for s in parts) / 2
    return sum((s * groups * eps) ** 2 for s in parts) / 2   # one block of groups rows


def max_concentrated(budget_eps, budget_delta, cost_eps, rho_pure, rho_gauss, xi, delta_c):
    """the most charges of one cost an accountant at one Renyi order can make
    once it converts with delta_c, over all orders (an upper bound for
    dp_accountant_charge's choice)"""
    room_delta = budget_delta - delta_c
    by_delta = math.inf if xi == 0 else math.floor(room_delta / xi * (1 + 1e-12))
    best_n = 0
    for i in range(20001):
        alpha = 1.0 + math.exp(math.log(1e-4) + (math.log(1e6) - math.log(1e-4)) * i / 20000)
        c = alpha * rho_gauss + min(cost_eps, alpha * rho_pure)
        room = budget_eps - conversion(alpha, delta_c)
        if room <= 0 or c <= 0:
            continue
        best_n = max(best_n, math.floor(room / c))
    return min(best_n, by_delta)


def main():
    out = []
    w = out.append
    w("/* generated by tests/unit/accountant_reference.py: do not edit */")
    w("static const struct { double order, delta, k; } ref_conversion[] = {")
    for alpha in (1.01, 1.5, 2.0, 3.0, 7.5, 40.0, 1000.0):
        for delta in (1e-3, 1e-5, 1e-10):
            w("\t{%r, %r, %.17g}," % (alpha, delta, conversion(alpha, delta)))
    w("};")
    w("static const struct { double rho, eps, delta, exact, bun_steinke; } ref_zcdp[] = {")
    for rho, eps in ((0.01, 0.5), (0.1, 1.0), (0.5, 3.0), (1.0, 5.0), (2.0, 10.0), (5.0, 20.0)):
        w("\t{%r, %r, %.17g, %.17g, %.17g}," % (rho, eps, zcdp_delta(rho, eps),
                                               gaussian_exact_delta(rho, eps),
                                               bun_steinke_delta(rho, eps)))
    w("};")
    w("static const struct { double rho, delta, eps; } ref_zcdp_epsilon[] = {")
    for rho, delta in ((0.01, 1e-5), (0.5, 1e-5), (1.0, 1e-5), (2.0, 5e-5), (0.05, 1e-9)):
        w("\t{%r, %r, %.17g}," % (rho, delta, zcdp_epsilon(rho, delta)))
    w("};")
    w("static const struct { double eps, delta, rho; } ref_gaussian_rho[] = {")
    for eps, delta in ((0.1, 5e-6), (1.0, 1e-5), (0.5, 1e-3), (2.0, 1e-6), (1.0, 5e-8)):
        w("\t{%r, %r, %.17g}," % (eps, delta, gaussian_rho(eps, delta)))
    w("};")
    w("static const struct { dp_block_structure s; double eps; int64_t groups; bool grouped; double rho; }"
      " ref_block_rho[] = {")
    for name, parts in BLOCK_PARTS.items():
        for eps, groups, grouped in ((0.3, 1, True), (0.1, 5, True), (0.05, 4, False)):
            w("\t{%s, %r, %d, %s, %.17g}," % (name, eps, groups, "true" if grouped else "false",
                                             block_rho(parts, eps, groups, grouped)))
    w("};")
    w("static const struct { double eps, order, renyi; } ref_pure_renyi[] = {")
    for eps in (0.01, 0.1, 1.0, 3.0):
        for alpha in (1.5, 3.0, 20.0):
            w("\t{%r, %r, %.17g}," % (eps, alpha, rr_renyi(eps, alpha)))
    w("};")
    # charges of one cost until refused: (budget, composed cost, concentrated cost)
    w("static const struct { double budget_eps, budget_delta; dp_charge_cost cost;"
      " double composed, concentrated; } ref_capacity[] = {")
    scenarios = [
        (10.0, 1e-4, 1.0, 0.0, 1.0, 0.5, 0.0, 0.0),
        (10.0, 1e-4, 0.1, 0.0, 0.1, 0.005, 0.0, 0.0),
        (10.0, 1e-4, 0.1, 0.0, 0.1, 0.0025, 0.0, 0.0),
        (10.0, 1e-4, 1.0, 2e-7, 1.0, 0.1, 0.0, 2e-7),
        (10.0, 1e-4, 1.0, 1e-7, 0.0, 0.0, gaussian_rho(1.0, 1e-7), 0.0),
        (10.0, 1e-4, 1.0, 1e-5, 0.0, 0.0, gaussian_rho(1.0, 1e-5), 0.0),
        (1.0, 1e-6, 0.05, 0.0, 0.05, 0.05 ** 2 / 2, 0.0, 0.0),
        (20.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.0, 0.0),
    ]
    for be, bd, ce, cd, pe, rp, rg, xi in scenarios:
        delta_c = min((bd - xi) / 2, 1e-3)
        composed = min(math.floor(be / ce * (1 + 1e-12)),
                       math.inf if cd == 0 else math.floor(bd / cd * (1 + 1e-12)))
        conc = max_concentrated(be, bd, pe, rp, rg, xi, delta_c)
        w("\t{%r, %r, {%r, %r, %r, %.17g, %.17g, %r}, %r, %r}," %
          (be, bd, ce, cd, pe, rp, rg, xi, float(composed), float(conc)))
    w("};")
    print("\n".join(out))


if __name__ == "__main__":
    main()
