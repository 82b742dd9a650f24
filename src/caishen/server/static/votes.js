// Votes at the table (issue 30, table manners; docs/server.md "Votes"): dismiss the room
// (解散房间) or pause the game. The "Vote" button in the bar opens the two; the server tells
// every page where a vote stands ({type: "vote_state"}) and whether the table is paused
// ({type: "paused"}). A banner under the bar shows the vote (who asked, each voter's answer,
// the seconds left, Yes/No for a person asked) and then its outcome for a few seconds; while
// paused, the time left and "Resume". Every word in this page's language.
"use strict";

const VOTES = (() => {
  const OUTCOME_MS = 6000;  // an outcome stays in sight this long
  let send = () => {};
  let vote = null;     // the last vote_state
  let voteAt = 0;      // when it came (Date.now())
  let answered = -1;   // the vote this page answered (its buttons go at once)
  let pausedUntil = null;  // Date.now() at which the pause ends by itself; null: not paused

  function controls(sendFn) {
    send = sendFn;
    const panel = h("div", { class: "votepanel", hidden: true, "data-testid": "votepanel" });
    const ask = (kind) => { send({ type: "vote", kind }); panel.hidden = true; };
    const fill = () => panel.replaceChildren(
      h("button", { type: "button", "data-testid": "vote-dismiss", onclick: () => ask("dismiss"), text: t("voteDismiss") }),
      h("button", { type: "button", "data-testid": "vote-pause", onclick: () => ask("pause"), text: t("votePause") }),
      h("p", { class: "muted", text: t("voteRule") }));
    // shown once the page is at the table (table.js, on its socket's open), hidden once the match is over
    const button = h("button", { type: "button", "data-testid": "vote", hidden: true, text: t("vote"),
      onclick: () => { fill(); below(panel, button); panel.hidden = !panel.hidden; } });
    onLang(() => { button.textContent = t("vote"); if (!panel.hidden) fill(); draw(); });
    return [button, panel];
  }

  function answer(yes) {
    if (!vote || vote.outcome !== null) return;
    answered = vote.vote;
    send({ type: "ballot", vote: vote.vote, yes });
    draw();
  }

  function secondsText(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return s >= 60 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` : t("secondsLeft", s);
  }

  function showingVote() {
    return vote !== null && (vote.outcome === null || Date.now() - voteAt < OUTCOME_MS);
  }

  // The banner, drawn again on every message (the countdowns are updated in place by tick).
  function draw() {
    let el = document.getElementById("votebanner");
    // once the match is over (a dismissal too: its panel says so) there is nothing to vote on
    const over = typeof VIEW !== "undefined" && VIEW && VIEW.match_over;
    if (over || (!showingVote() && pausedUntil === null)) {
      if (el) el.remove();
      document.body.style.setProperty("--vote-h", "0px");
      return;
    }
    if (!el) {
      el = h("div", { id: "votebanner", class: "votebanner", role: "status", "data-testid": "vote-banner" });
      document.querySelector(".bar").after(el);
    }
    const parts = [];
    if (showingVote()) {
      const v = vote;
      const box = h("div", { class: "vote", "data-testid": "vote-box", "data-kind": v.kind, "data-vote": v.vote },
        h("b", { text: t(v.kind === "dismiss" ? "voteAsksDismiss" : "voteAsksPause", playerName(v.starter)) }),
        h("div", { class: "voters" }, v.voters.map((x) => h("span", { class: "voter " + (x.vote || "wait"),
          "data-answer": x.vote || "", text: `${playerName(x.name)} ${x.vote === "yes" ? "✓" : x.vote === "no" ? "✗" : "…"}` }))));
      if (v.outcome === null) {
        box.append(h("span", { class: "votetimer", "data-testid": "vote-timer" }));
        if (v.mine && answered !== v.vote) {
          box.append(h("div", { class: "row votebuttons" },
            h("button", { type: "button", class: "primary", "data-testid": "vote-yes", onclick: () => answer(true), text: t("voteYes") }),
            h("button", { type: "button", "data-testid": "vote-no", onclick: () => answer(false), text: t("voteNo") })));
        }
      } else {
        box.append(h("div", { class: "outcome " + v.outcome, "data-testid": "vote-outcome", "data-outcome": v.outcome,
          text: t(v.outcome === "failed" ? "voteFailed" : v.kind === "dismiss" ? "votePassedDismiss" : "votePassedPause") }));
      }
      parts.push(box);
    }
    if (pausedUntil !== null) {
      const row = h("div", { class: "pausedrow", "data-testid": "paused" }, h("span", { class: "pausedtext" }));
      if (typeof VIEW !== "undefined" && VIEW && VIEW.me !== null && !VIEW.match_over) {
        row.append(h("button", { type: "button", class: "primary", "data-testid": "resume", onclick: () => send({ type: "resume" }), text: t("resume") }));
      }
      parts.push(row);
    }
    el.replaceChildren(...parts);
    // a score panel (between hands) starts below the banner: its "Next hand" stays in reach
    document.body.style.setProperty("--vote-h", `${el.offsetHeight}px`);
    tick();
  }

  function tick() {
    const timer = document.querySelector("#votebanner [data-testid=vote-timer]");
    if (timer && vote) timer.textContent = secondsText(vote.ms_left - (Date.now() - voteAt));
    const paused = document.querySelector("#votebanner .pausedtext");
    if (paused && pausedUntil !== null) paused.textContent = t("pausedBanner", secondsText(pausedUntil - Date.now()));
    if (vote && vote.outcome !== null && Date.now() - voteAt >= OUTCOME_MS && document.querySelector("#votebanner [data-testid=vote-box]")) draw();
  }
  setInterval(tick, 250);

  function onVote(msg) {
    vote = msg;
    voteAt = Date.now();
    draw();
  }

  function onPaused(msg, toast) {
    pausedUntil = msg.on ? Date.now() + msg.ms_left : null;
    if (!msg.on && toast) toast(msg.by ? t("resumedBy", playerName(msg.by)) : t("resumedTime"));
    draw();
  }

  // A new connection: the server tells the open vote and the pause again.
  function reset() {
    vote = null;
    pausedUntil = null;
    draw();
  }

  // A refusal of a vote, an answer or a resume, in this page's language (null: not one of those).
  function errorText(msg) {
    const key = "err_" + msg.code;
    return t(key) === key ? null : t(key);
  }

  return { controls, onVote, onPaused, reset, draw, errorText, paused: () => pausedUntil !== null };
})();
