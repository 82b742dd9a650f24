// Lobby: name, one-click practice, create/join a room, my clubs, my matches.
"use strict";

let VARIANTS = [];
let ME = null;

async function loadMe() {
  ME = await api("/api/me");
  const input = document.getElementById("name");
  if (ME.name || document.activeElement !== input) input.value = ME.name || "";  // keep what is being typed
  document.getElementById("meline").textContent = ME.name ? t("playingAs") + ME.name : t("pickName");
  document.getElementById("logoutall").hidden = !ME.name;
}

async function ensureName() {
  if (ME && ME.name) return true;
  const input = document.getElementById("name");
  if (!input.value.trim()) { document.getElementById("nameerr").textContent = t("nameFirst"); input.focus(); return false; }
  ME = await api("/api/me", { method: "POST", body: { name: input.value } });
  return true;
}

// The switch's input showing `value` (its default, or what the user chose before a re-render).
function switchInput(sw, value) {
  const id = "sw-" + sw.name;
  if (Array.isArray(value)) return h("input", { id, type: "text", value: value.join(","), disabled: !sw.editable, "data-kind": "list" });
  if (typeof value === "boolean") return h("input", { id, type: "checkbox", checked: value, disabled: !sw.editable, "data-kind": "bool" });
  if (typeof value === "number") return h("input", { id, type: "number", value, disabled: !sw.editable, "data-kind": "int" });
  if (sw.choices && sw.choices.length) {
    return h("select", { id, disabled: !sw.editable, "data-kind": "choice" },
      sw.choices.map((c) => h("option", { value: c, selected: c === value }, choiceText(c))));
  }
  return h("input", { id, type: "text", value, disabled: true, "data-kind": "str" });
}

function currentVariant() {
  return VARIANTS.find((x) => x.name === document.getElementById("variant").value);
}

// Show `value` in the switch's input (a preset picked).
function setSwitch(sw, value) {
  const el = document.getElementById("sw-" + sw.name);
  if (!el || !sw.editable) return;
  if (el.dataset.kind === "bool") el.checked = value;
  else if (el.dataset.kind === "list") el.value = value.join(",");
  else el.value = value;
}

// Set every switch to the preset's value (the variant's default where the preset says nothing).
function applyPreset(name) {
  const v = currentVariant();
  const p = v.presets.find((x) => x.name === name);
  if (!p) return;
  for (const sw of v.switches) setSwitch(sw, sw.name in p.switches ? p.switches[sw.name] : sw.value);
  showPreset();
}

// The preset the switches now equal ("" when the user has made his own mix), shown in the
// preset list with its one-line explanation.
function showPreset() {
  const v = currentVariant();
  const sel = document.getElementById("preset");
  const doc = document.getElementById("presetdoc");
  if (!v) return;
  const now = JSON.stringify(changedSwitches());
  const p = v.presets.find((x) => JSON.stringify(sortedKeys(x.switches)) === now);
  sel.replaceChildren(...v.presets.map((x) => h("option", { value: x.name }, LANG === "zh" ? x.title_zh : x.title)),
    h("option", { value: "", disabled: true }, t("customRules")));
  sel.value = p ? p.name : "";
  doc.textContent = p ? (LANG === "zh" ? p.doc_zh : p.doc) : t("customRulesDoc");
}

// Only the bot levels that play the chosen variant are offered (the learned bot plays Longgang
// only: a Luoyang room with it was refused in the server's English).
function fitBots() {
  const v = currentVariant();
  const bot = document.getElementById("bot");
  if (!v || !bot) return;
  for (const o of bot.options) o.disabled = Array.isArray(v.bots) && v.bots.length > 0 && !v.bots.includes(o.value);
  if (bot.selectedOptions[0] && bot.selectedOptions[0].disabled) bot.value = "greedy";
}

function renderSwitches() {
  const v = currentVariant();
  const box = document.getElementById("switches");
  // a re-render for the other language keeps what the user has set so far
  const kept = v && box.dataset.variant === v.name ? changedSwitches() : {};
  box.replaceChildren();
  if (!v) return;
  box.dataset.variant = v.name;
  // "until 断筹" only where the variant has going broke (Longgang, L25)
  const toBreak = document.querySelector('#hands option[value="0"]');
  toBreak.disabled = !v.to_break;
  if (!v.to_break && document.getElementById("hands").value === "0") document.getElementById("hands").value = "16";
  fitBots();
  const groups = new Map();
  for (const sw of v.switches) {
    if (sw.name === "hands_per_match") continue;  // set by "Hands" above; its preset value only confused
    if (!groups.has(sw.group)) groups.set(sw.group, []);
    groups.get(sw.group).push(sw);
  }
  // Each switch: its plain name and one line in the page's language; the rule ID and the
  // switch's own name only with "details" on (docs/server.md, "House-rule presets").
  for (const [title, list] of groups) {
    box.append(h("fieldset", {}, h("legend", { text: LANG === "zh" ? list[0].group_zh : title }), list.map((sw) =>
      h("label", { class: "switch", for: "sw-" + sw.name },
        switchInput(sw, sw.name in kept ? kept[sw.name] : sw.value),
        h("span", { class: "body" },
          h("b", { class: "title", text: LANG === "zh" ? sw.title_zh : sw.title }),
          h("span", { class: "doc", title: LANG === "zh" ? sw.doc : sw.doc_zh, text: LANG === "zh" ? sw.doc_zh : sw.doc }),
          h("span", { class: "more" }, h("span", { class: "rid", text: sw.rule }), " ",
            h("code", { text: sw.allowed ? `${sw.name} · ${sw.allowed}` : sw.name })))))));
  }
  showPreset();
}

function changedSwitches() {
  const v = currentVariant();
  const out = {};
  for (const sw of v.switches) {
    if (!sw.editable) continue;
    const el = document.getElementById("sw-" + sw.name);
    if (!el) continue;
    let val;
    if (el.dataset.kind === "bool") val = el.checked;
    else if (el.dataset.kind === "int") val = Number(el.value);
    else if (el.dataset.kind === "list") val = el.value.split(",").map((x) => Number(x.trim()));
    else if (el.dataset.kind === "choice") val = el.value;
    else continue;
    if (JSON.stringify(val) !== JSON.stringify(sw.value)) out[sw.name] = val;
  }
  return sortedKeys(out);
}

// The same switches with their names in order (two sets compare equal as JSON text).
function sortedKeys(o) {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

Object.assign(I18N.zh, { clubs: "亲友圈", clubsLink: "我的亲友圈：创建、加入", saveTemplate: "存为亲友圈模板",
  templateNameNeeded: "先给模板起个名字",
  templateName: "模板名", templateSaved: "已存为“{1}”的模板“{0}”" });
Object.assign(I18N.en, { clubs: "Clubs", clubsLink: "My clubs: create one, join one", saveTemplate: "Save as a club template",
  templateNameNeeded: "Give the template a name first",
  templateName: "Template name", templateSaved: "Saved as the template “{0}” of “{1}”" });

// The room form's options, as POST /api/rooms takes them (a club's template is the same).
function roomOptions() {
  return {
    variant: document.getElementById("variant").value, switches: changedSwitches(),
    hands: Number(document.getElementById("hands").value), friends: Number(document.getElementById("friends").value),
    bot: document.getElementById("bot").value, pace: document.getElementById("pace").value,
    turn_seconds: Number(document.getElementById("timer").value),
    help_allowed: document.getElementById("helpallowed").checked,
    stand_in: document.getElementById("standin").value,
    spectators: document.getElementById("spectators").checked, chat: document.getElementById("chat").checked,
  };
}

// My clubs as links; the clubs I run can take the room form as a template.
async function loadClubs() {
  const mine = await api("/api/clubs");
  document.getElementById("lobbyclubs").replaceChildren(...mine.map((c) => h("a", { href: "/club/" + c.code, text: c.name })));
  const runs = mine.filter((c) => c.role === "owner" || c.role === "admin");
  const sel = document.getElementById("templateclub");
  const wanted = new URLSearchParams(location.search).get("club") || sel.value;
  sel.replaceChildren(...runs.map((c) => h("option", { value: c.code, text: c.name })));
  if (runs.some((c) => c.code === wanted)) sel.value = wanted;
  document.getElementById("templaterow").hidden = !runs.length;
}

async function loadMatches() {
  const list = await api("/api/my/matches");
  const box = document.getElementById("matches");
  if (!list.length) { box.replaceChildren(h("p", { class: "muted", text: t("noMatches") })); return; }
  // the links first: on a phone the table is wider than the screen, and they are the way back in
  box.replaceChildren(h("table", { class: "list" },
    h("tr", {}, h("th", {}), h("th", { text: t("created") }), h("th", { text: t("status") }), h("th", { text: t("players") }),
      h("th", { class: "num", text: t("handsPlayed") }), h("th", { text: t("chips") })),
    list.map((m) => h("tr", {},
      h("td", { class: "links", "data-testid": "match-links" }, m.status !== "over" ? h("a", { href: "/r/" + m.code, text: t("open") }) : null,
        h("a", { href: "/m/" + m.code, text: t("result") })),
      h("td", { class: "nowrap", text: localStamp(m.created) }), h("td", { class: "nowrap", text: t(m.status) }),
      // bots as "bot 2" in the page's language (their level is the room's, shown at the table)
      h("td", {}, marked(m.players.map((n) => (n === null ? t("seatOpen") : botLevel(n) ? botName(n) : n)), m.me, "my-name",
        LANG === "zh" ? "、" : ", ")),
      // (each "/" may break the line: four chip counts fit a phone's column)
      h("td", { class: "num", text: m.hands_played }),
      h("td", {}, marked(m.chips.map(String), m.me, "my-chips", "/\u200b"))))));
}

// A match's names or chips by player, ``sep`` between them, mine (player ``me``) in bold as
// ``testid``: one list of four numbers said nothing of whose they were.
function marked(items, me, testid, sep) {
  return items.flatMap((x, i) => [i ? sep : null, i === me ? h("b", { "data-testid": testid }, x) : h("span", {}, x)]);
}

async function main() {
  setLang(LANG);
  document.getElementById("langslot").append(langButton(() => { renderSwitches(); loadMe(); loadMatches(); }));
  VARIANTS = await api("/api/variants");
  const LEVELS = await api("/api/bot-levels");  // random, greedy, strong, learned and the operator's own
  const sel = document.getElementById("variant");
  const bot = document.getElementById("bot");
  const fillChoices = () => {  // the variants' and bot levels' names in the page's language
    const keep = [sel.value, bot.value];
    sel.replaceChildren(...VARIANTS.map((v) => h("option", { value: v.name, disabled: !v.playable },
      t("variant_" + v.name) + (v.playable ? "" : ` (${t("notPlayable")})`))));
    bot.replaceChildren(...LEVELS.map((b) => h("option", { value: b }, t("level_" + b) === "level_" + b ? b : t("level_" + b))));
    sel.value = keep[0] || VARIANTS[0].name;
    bot.value = keep[1] || "greedy";
    fitBots();
    document.getElementById("joincode").placeholder = t("codeOrLink");
  };
  fillChoices();
  sel.addEventListener("change", renderSwitches);
  document.getElementById("preset").addEventListener("change", (e) => applyPreset(e.target.value));
  document.getElementById("switches").addEventListener("change", showPreset);
  document.getElementById("ruledetails").addEventListener("change", (e) => {
    document.getElementById("switches").classList.toggle("details", e.target.checked);
  });
  document.getElementById("langslot").firstChild.addEventListener("click", fillChoices);
  renderSwitches();
  await loadMe();
  loadMatches();
  loadClubs();

  document.getElementById("nameform").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      ME = await api("/api/me", { method: "POST", body: { name: document.getElementById("name").value } });
      document.getElementById("nameerr").textContent = "";
      await loadMe();
    } catch (err) { tell(document.getElementById("nameerr"), err); }
  });
  document.getElementById("logoutall").addEventListener("click", async () => {
    if (!confirm(t("confirmLogoutAll"))) return;
    try {
      await api("/api/logout-everywhere", { method: "POST" });
      await loadMe();
      loadMatches();
    } catch (err) { tell(document.getElementById("nameerr"), err); }
  });
  document.getElementById("practice").addEventListener("click", async () => {
    try {
      if (!(await ensureName())) return;
      const room = await api("/api/practice", { method: "POST" });
      location.href = "/r/" + room.code;
    } catch (err) { tell(document.getElementById("practiceerr"), err); }
  });
  document.getElementById("joinform").addEventListener("submit", (e) => {
    e.preventDefault();
    const raw = document.getElementById("joincode").value.trim();
    const code = raw.includes("/r/") ? raw.split("/r/")[1].split(/[?#/]/)[0] : raw;
    const err = document.getElementById("joinerr");
    err.textContent = "";
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(code)) { err.textContent = t("err_no_room"); return; }
    // an unknown code is told here, in the lobby, not on an empty table page
    // (to the room's own code: one typed in capitals is found, the table's socket needs the code itself)
    api(`/api/rooms/${code}`).then((room) => { location.href = "/r/" + room.code; }, () => { err.textContent = t("err_no_room"); });
  });
  document.getElementById("roomform").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      if (!(await ensureName())) return;
      const room = await api("/api/rooms", { method: "POST", body: roomOptions() });
      location.href = "/r/" + room.code;
    } catch (err) { document.getElementById("roomerr").classList.remove("ok"); tell(document.getElementById("roomerr"), err); }
  });
  document.getElementById("savetemplate").addEventListener("click", async () => {
    const err = document.getElementById("roomerr");
    const club = document.getElementById("templateclub");
    if (!document.getElementById("templatename").value.trim()) {  // said, not "something is filled in wrong"
      err.textContent = t("templateNameNeeded"); err.classList.remove("ok"); document.getElementById("templatename").focus();
      return;
    }
    try {
      await api(`/api/clubs/${club.value}/templates`, { method: "POST",
        body: { name: document.getElementById("templatename").value, options: roomOptions() } });
      err.textContent = t("templateSaved", document.getElementById("templatename").value, club.selectedOptions[0].textContent);
      err.classList.add("ok");
    } catch (ex) { tell(err, ex); err.classList.remove("ok"); }
  });
  document.body.dataset.ready = "1";  // every form has its handler (tests wait for this)
}

// Until main() has put in its handlers, a form sent on a slow line would reload the page and
// lose what was typed: hold it instead (the click can be made again a moment later).
document.addEventListener("submit", (e) => { if (!document.body.dataset.ready) e.preventDefault(); }, true);
main();
