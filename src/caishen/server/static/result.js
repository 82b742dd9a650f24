// The public result page of a match: standings, every hand's score, fairness panel, replays.
"use strict";

const CODE = location.pathname.split("/").pop();

async function runVerify(out) {
  out.textContent = "…";
  try {
    const r = await api(`/api/matches/${CODE}/verify`);
    // the message is `caishen verify`'s own (English); in Chinese it is the tooltip
    out.textContent = `${r.ok ? "✔ " + t("verifyOk") : "✘ " + t("verifyFail")}` + (LANG === "zh" && r.ok ? "" : `: ${r.message}`);
    out.title = r.message;
    out.className = r.ok ? "pos" : "neg";
  } catch (err) { out.textContent = err.message; }
}

async function render() {
  const main = document.getElementById("main");
  let res;
  try { res = await api(`/api/matches/${CODE}`); } catch (err) { main.replaceChildren(h("p", { text: err.message })); return; }
  const parts = [];
  parts.push(h("section", { class: "card" }, h("h2", { text: `${t("standings")} · ${t(res.status)}` }),
    res.standings.length ? standingsEl(res.standings) : h("p", { class: "muted", text: t("waiting") }),
    h("p", { class: "row" }, h("a", { href: `/api/matches/${CODE}/record`, download: `caishen-${CODE}.json`, text: t("download") }),
      res.status !== "over" ? h("a", { href: `/r/${CODE}`, text: t("open") }) : null)));
  const out = h("span", { "data-testid": "verify-result" });
  parts.push(h("section", { class: "card", id: "fairness" }, h("h2", { text: t("fairness") }),
    h("table", { class: "list" }, h("tr", {}, h("th", { text: "#" }), h("th", { text: t("commitment") }), h("th", { text: t("seed") })),
      res.fairness.map((f) => h("tr", {}, h("td", { text: f.index + 1 }), h("td", { class: "fair", text: f.commitment }),
        h("td", { class: "fair", text: f.seed || "—" })))),
    h("p", { class: "row" }, h("button", { class: "primary", type: "button", "data-testid": "verify", text: t("verify"), onclick: () => runVerify(out) }), out)));
  for (const end of res.hands) {
    parts.push(h("section", { class: "card" }, scoreTableEl(end),
      h("p", {}, h("a", { href: `/replay/${CODE}/${end.index}`, "data-testid": `replay-${end.index}`, text: `${t("replay")} ${t("hand", end.index + 1)}` }))));
  }
  main.replaceChildren(...parts);
}

setLang(LANG);
document.getElementById("langslot").append(langButton(render));
render();
