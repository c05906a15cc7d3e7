"use strict";
// The reference player page of responsible gaming: everything through the API (API.md v1.2), signed in by the
// HttpOnly cookie the /play/ pages' sign-in sets (no script reads the token; requests carry the page's CSRF
// token). Text is set with textContent only.
const config = JSON.parse(document.getElementById("limits-config").textContent);
const $ = (id) => document.getElementById(id);
const el = (tag, text) => { const node = document.createElement(tag); if (text !== undefined) node.textContent = text; return node; };

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json", "X-CSRFToken": config.csrf };
  const url = path.startsWith("/play/") ? path : "/api/v1" + path;
  const response = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined, credentials: "same-origin" });
  const data = response.status === 204 ? null : await response.json();
  return { status: response.status, data };
}

function message(answer) { return answer.data && answer.data.error ? answer.data.error.message : "refused"; }

async function load() {
  const answer = await api("GET", "/me/limits");
  if (answer.status !== 200) { $("status").textContent = "not signed in"; $("signin").hidden = false; return; }
  $("signin").hidden = true;
  $("status").textContent = "signed in";
  const body = $("limits").tBodies[0];
  body.replaceChildren();
  for (const limit of answer.data.limits) {
    const row = el("tr");
    row.append(el("td", limit.kind + (limit.period ? " per " + limit.period : "")), el("td", String(limit.amount)),
      el("td", limit.used === null ? "" : String(limit.used)), el("td", limit.remaining === null ? "" : String(limit.remaining)));
    body.append(row);
  }
  const reality = el("tr");
  reality.append(el("td", "reality check every"), el("td", answer.data.reality_check_minutes + " minutes"));
  body.append(reality);
  $("requests").replaceChildren();
  for (const request of answer.data.requests) {
    const item = el("li", request.kind + (request.period ? " per " + request.period : "") + " to " +
      (request.amount === null ? "no limit" : request.amount) + ": confirmable from " + request.confirmable_at +
      ", lapses " + request.expires_at + " ");
    const button = el("button", "Confirm");
    button.addEventListener("click", async () => {
      const done = await api("POST", "/me/limits/requests/" + request.id + "/confirm");
      $("limit-error").textContent = done.status === 200 ? "" : message(done);
      load();
    });
    item.append(button);
    $("requests").append(item);
  }
  const exclusion = answer.data.exclusion;
  $("exclusion").textContent = exclusion ? "You are on a " + exclusion.kind.replace("_", "-") + " until " + exclusion.until : "";
  const due = answer.data.reality_check_due;
  $("reality").hidden = !due;
  if (due) {
    $("reality-text").textContent = "You have played for " + Math.floor(due.elapsed_s / 60) + " minutes this session, " +
      "wagered " + due.wagered + " chips, and your net is " + due.net + " chips.";
  }
  const activity = await api("GET", "/me/activity");
  const rows = $("activity").tBodies[0];
  rows.replaceChildren();
  if (activity.status === 200) {
    for (const key of ["stakes", "wins", "net", "deposits", "withdrawals", "net_deposits"]) {
      const row = el("tr"); row.append(el("th", key.replace("_", " ")), el("td", String(activity.data[key]))); rows.append(row);
    }
  }
}

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const answer = await api("POST", config.session_url, { username: $("username").value, password: $("password").value });
  if (answer.status !== 200) { $("signin-error").textContent = message(answer); return; }
  $("signin-error").textContent = "";
  load();
});

$("limit-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const [kind, period] = $("limit-kind").value.split(":");
  const raw = $("limit-amount").value.trim();
  const body = { kind, amount: raw === "" ? null : Number(raw) };
  if (period) body.period = period;
  const answer = await api("PUT", "/me/limits", body);
  $("limit-error").textContent = answer.status === 200 ? "Done." : answer.status === 202 ?
    "Requested: confirm it after the cooling-off." : message(answer);
  load();
});

$("reality-ack").addEventListener("click", async () => { await api("POST", "/me/reality-check"); load(); });

$("exclusion-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const [kind, days] = $("exclusion-choice").value.split(":");
  if (!window.confirm("Start it now? It cannot be shortened.")) return;
  const answer = await api("POST", "/me/exclusion", { kind, days: Number(days) });
  if (answer.status !== 201) { $("exclusion-error").textContent = message(answer); return; }
  // the exclusion revoked every token of the account, the cookie's included
  $("exclusion").textContent = "Started: until " + answer.data.until + ". You have been signed out.";
  $("status").textContent = "signed out";
});

load();
