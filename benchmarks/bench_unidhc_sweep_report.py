"""Tables and plot of ``bench_unidhc_sweep.py`` (called by its ``report`` stage)."""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from hyperclust.models.basis import basis_response

FIXED = ("kmeans(X)", "X", "PX", "P^2 X", "X - PX")
LOSS_ROWS = ("unidhc", "kernel alignment", "complementary views", "no decorrelation",
             "no consistency",
             "gamma trained by the losses", "z-score start, gamma_lr 1e-3",
             "energy contrast", "held-out choice", "held-out choice, 2 folds", "dropout 0.5")


def _by(rows):
    out = {}
    for r in rows:
        out.setdefault((r["method"], r["h"]), []).append(r)
    return out


def _ms(values):
    return f"{np.mean(values):.3f} ± {np.std(values):.3f}"


def _table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def accuracy_table(by, levels):
    """ACC per h: fixed filters, the learned filter, and the gap to the best fixed one."""
    body = []
    for h in levels:
        fixed = {m: np.mean([r["acc"] for r in by[(m, h)]]) for m in FIXED if (m, h) in by}
        best = max(fixed, key=fixed.get)
        uni = np.mean([r["acc"] for r in by[("unidhc", h)]])
        blk = np.mean([r["acc"] for r in by[("unidhc (filter block)", h)]])
        body.append([h] + [f"{fixed[m]:.3f}" for m in FIXED]
                    + [_ms([r["acc"] for r in by[("unidhc", h)]]), f"{blk:.3f}",
                       f"{uni - fixed[best]:+.3f} ({best})"])
    return _table(["h"] + list(FIXED) + ["unidhc", "unidhc filter block",
                                          "unidhc - best fixed"], body)


def share_table(by, levels, seeds):
    """Learned low-pass share per h and its Spearman correlation with h per seed."""
    body = [[h, _ms([r["share"] for r in by[("unidhc", h)]]),
             " ".join(f"{g:+.2f}" for g in np.mean([r["gamma"] for r in by[("unidhc", h)]],
                                                    axis=0))] for h in levels]
    smooth = "output_smoothness" in by[("unidhc", levels[0])][0]
    if smooth:
        for row, h in zip(body, levels):
            row.append(_ms([r["output_smoothness"] for r in by[("unidhc", h)]]))
    text = _table(["h", "low-pass share", "mean gamma (P^0..P^K)"]
                  + (["output smoothness"] if smooth else []), body)
    for key, name in (("share", "share"), ("output_smoothness", "output smoothness")):
        if key == "output_smoothness" and not smooth:
            continue
        rho = [spearmanr(levels, [next(r[key] for r in by[("unidhc", h)] if r["seed"] == s)
                                  for h in levels])[0] for s in seeds]
        text += f"\n\nSpearman(h, {name}) per seed: " + ", ".join(
            f"seed {s}: {r:.3f}" for s, r in zip(seeds, rho))
    return text


def loss_table(by, levels):
    """ACC (and share) per h of each loss variant."""
    names = [m for m in LOSS_ROWS if ("unidhc" == m or (m, levels[0]) in by)]
    body = []
    for h in levels:
        body.append([h] + [f"{np.mean([r['acc'] for r in by[(m, h)]]):.3f} / "
                           f"{np.mean([r['share'] for r in by[(m, h)]]):+.2f}"
                           for m in names if (m, h) in by])
    return _table(["h (ACC / share)"] + names, body)


def order_table(by, levels):
    """The learned filter alone (k-means on it) for every K."""
    orders = sorted({int(m.split("=")[1]) for (m, _) in by if m.startswith("filter K=")})
    body = [[h] + [f"{np.mean([r['acc'] for r in by[(f'filter K={K}', h)]]):.3f} / "
                   f"{np.mean([r['share'] for r in by[(f'filter K={K}', h)]]):+.2f}"
                   for K in orders if (f"filter K={K}", h) in by] for h in levels]
    return _table(["h (ACC / share)"] + [f"K={K}" for K in orders], body)


def plot(by, levels, out):
    """Learned response g(lambda) per h (mean over seeds), share and ACC along h, and the
    trajectory of the low-pass share during learning (seed 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from hyperclust.models.contrast import low_pass_share

    lam = np.linspace(0, 1, 101)
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    cmap = plt.get_cmap("coolwarm")
    for i, h in enumerate(levels):
        gammas = np.array([r["gamma"] for r in by[("unidhc", h)]])
        resp = gammas @ basis_response(lam, gammas.shape[1] - 1)
        resp /= np.abs(resp).max(axis=1, keepdims=True)
        ax[0].plot(lam, resp.mean(axis=0), color=cmap(i / max(1, len(levels) - 1)),
                   label=f"h={h}")
        traj = next(r["trajectory"] for r in by[("unidhc", h)] if r["seed"] == 0)
        ax[2].plot(np.arange(len(traj)) * 10, [low_pass_share(g) for g in traj],
                   color=cmap(i / max(1, len(levels) - 1)))
    ax[0].set(xlabel="Laplacian eigenvalue lambda", ylabel="g(lambda) / max |g|",
              title="learned response (mean of 5 seeds)")
    ax[0].legend(fontsize=7, ncol=2)
    share = [np.mean([r["share"] for r in by[("unidhc", h)]]) for h in levels]
    ax[1].plot(levels, share, "k-o", label="low-pass share")
    if "output_smoothness" in by[("unidhc", levels[0])][0]:
        ax[1].plot(levels, [np.mean([r["output_smoothness"] for r in by[("unidhc", h)]])
                            for h in levels], "k--s", label="output smoothness")
    for m in ("unidhc", "X", "PX", "P^2 X", "X - PX"):
        ax[1].plot(levels, [np.mean([r["acc"] for r in by[(m, h)]]) for h in levels],
                   "-" if m == "unidhc" else ":", label=f"ACC {m}")
    ax[1].set(xlabel="homophily h", title="share and ACC along h")
    ax[1].legend(fontsize=7)
    ax[2].set(xlabel="Adam step", ylabel="low-pass share", title="learning from the uniform "
              "mixture (seed 0)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def report(rows, md_path, png_path):
    by = _by(rows)
    levels = sorted({r["h"] for r in rows if r["method"] == "unidhc"})
    seeds = sorted({r["seed"] for r in rows if r["method"] == "unidhc"})
    commits = sorted({r.get("commit", "?") for r in rows})
    text = [f"# Uni-DHC along the homophily sweep ({len(seeds)} seeds, commits "
            f"{', '.join(commits)})", "",
            "Written by `benchmarks/bench_unidhc_sweep.py report`; "
            "`hypergraph_sbm(2000, 4, homophily=h, n_features=32, random_state=seed)`, "
            "labels only score the final clustering. Fixed filters: k-means on the "
            "row-normalised filter output (mean ACC).", "",
            "## ACC", "", accuracy_table(by, levels), "",
            "## Learned low-pass share `(g(0) - g(1)) / max |g|`", "",
            share_table(by, levels, seeds), "",
            "## Losses on / off (ACC / low-pass share of the final gamma)", "",
            loss_table(by, levels), ""]
    if any(m.startswith("filter K=") for (m, _) in by):
        text += ["## K sweep (the learned filter alone, epochs=0; ACC / share)", "",
                 order_table(by, levels), ""]
    md_path.write_text("\n".join(text))
    plot(by, levels, png_path)
    print("\n".join(text))
