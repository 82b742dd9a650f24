// Spectators (观战, issue 30 item 3; docs/server.md "Spectators"). A room with spectators on may
// be watched by anyone signed in who is not one of its players: the table page's "Watch"
// button connects with ?watch=1; the server then sends only what every player sees, one move
// behind, and refuses any move. Every page at the table is told the spectators' names
// ({type: "watchers", names}), shown under the board. Names go in with textContent only.
"use strict";

const WATCH = (() => {
  let on = false;

  // The page becomes a spectator's: the badge in the bar, no help box, no hand of its own.
  function start() {
    on = true;
    document.body.classList.add("spectating");
    if (!document.querySelector("[data-testid=spectating]")) {
      document.querySelector(".bar .grow").before(h("span", { class: "pill watchbadge", "data-testid": "spectating", "data-i18n": "spectating", text: t("spectating") }));
    }
  }

  // A refused watch (spectators_off, too_many_spectators, ...): the room's page again.
  function stop(reason) {
    on = false;
    document.body.classList.remove("spectating");
    const badge = document.querySelector("[data-testid=spectating]");
    if (badge) badge.remove();
    if (reason) toast(t("watchRefused_" + reason) === "watchRefused_" + reason ? reason : t("watchRefused_" + reason));
  }

  // The spectators' names, as the server last told them ("" when nobody watches).
  let names = [];
  function list(got) { names = got; render(); }
  function render() {
    const el = document.getElementById("watchers");
    if (!el) return;
    el.hidden = !names.length;
    el.textContent = names.length ? t("watchingList", names.join(LANG === "zh" ? "、" : ", ")) : "";
  }

  // What a spectator sees where a player's buttons would be.
  function note(box) { box.append(h("span", { class: "muted", "data-testid": "spectating-note", text: t("spectatingNote") })); }

  // The "Watch" button of the room's card (a playing room with spectators on, for a non-player);
  // someone with no name yet (me: /api/me) picks one beside it: spectators are named to the table.
  function button(connect, me) {
    // (a name typed for the open seat before the match started is kept: the card changed under it)
    const typed = document.getElementById("joinname");
    const name = me && me.name ? null : h("input", { id: "watchname", maxlength: 24, placeholder: t("name"), "aria-label": t("name"),
      value: typed ? typed.value : "" });
    const err = h("div", { class: "err", "data-testid": "watch-error" });
    return h("div", {}, h("div", { class: "row" }, name, h("button", { class: "primary", type: "button", "data-testid": "watch", text: t("watch"),
      onclick: async () => {
        if (name) {
          try { await api("/api/me", { method: "POST", body: { name: name.value } }); } catch (e) { tell(err, e); return; }
        }
        start();
        document.getElementById("lobbybox").replaceChildren(h("p", { class: "muted", style: "margin:.8rem", text: t("spectatingNote") }));
        connect();
      } })), err);
  }

  return { start, stop, list, render, note, button, get on() { return on; } };
})();
