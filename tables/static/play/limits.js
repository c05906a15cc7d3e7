"use strict";
// The reference player page of responsible gaming: everything through the API (API.md v1.2), signed in by the
// HttpOnly cookie the /play/ pages' sign-in sets (no script reads the token; requests carry the page's CSRF
// token). Text is set with textContent only. Words come from the page (responsible/page_words.py) in the page's
// language; dates are written in the viewer's locale (Intl.DateTimeFormat).
const config = JSON.parse(document.getElementById("limits-config").textContent);
const W = config.words;
const fmt = (template, params) => template.replace(/%\((\w+)\)s/g, (_, name) => String(params[name] ?? ""));
const when = (iso) => new Intl.DateTimeFormat(config.language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
function plural(key, count, params = {}) {
  const forms = W.plurals[key];
  return fmt(forms[new Intl.PluralRules(config.language).select(count)] || forms.other, { ...params, count });
}
const limitName = (kind, period) => W.limits[kind + ":" + (period || "")] || kind;
const $ = (id) => document.getElementById(id);
const el = (tag, text) => { const node = document.createElement(tag); if (text !== undefined) node.textContent = text; return node; };

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json", "X-CSRFToken": config.csrf, "Accept-Language": config.language };
  const url = path.startsWith("/play/") ? path : "/api/v1" + path;
  const response = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined, credentials: "same-origin" });
  const data = response.status === 204 ? null : await response.json();
  return { status: response.status, data };
}

function message(answer) { return answer.data && answer.data.error ? answer.data.error.message : W.refused; }

async function load() {
  const answer = await api("GET", "/me/limits");
  if (answer.status !== 200) { $("status").textContent = W.not_signed_in; $("signin").hidden = false; return; }
  $("signin").hidden = true;
  $("status").textContent = W.signed_in;
  const body = $("limits").tBodies[0];
  body.replaceChildren();
  for (const limit of answer.data.limits) {
    const row = el("tr");
    row.append(el("td", limitName(limit.kind, limit.period)), el("td", String(limit.amount)),
      el("td", limit.used === null ? "" : String(limit.used)), el("td", limit.remaining === null ? "" : String(limit.remaining)));
    body.append(row);
  }
  const reality = el("tr");
  reality.append(el("td", W.limits["reality_check:"]), el("td", plural("minutes", answer.data.reality_check_minutes)));
  body.append(reality);
  $("requests").replaceChildren();
  for (const request of answer.data.requests) {
    const item = el("li", fmt(W.request_line, { limit: limitName(request.kind, request.period),
      amount: request.amount === null ? W.no_limit : request.amount, from: when(request.confirmable_at),
      until: when(request.expires_at) }) + " ");
    const button = el("button", W.confirm);
    button.addEventListener("click", async () => {
      const done = await api("POST", "/me/limits/requests/" + request.id + "/confirm");
      $("limit-error").textContent = done.status === 200 ? "" : message(done);
      load();
    });
    item.append(button);
    $("requests").append(item);
  }
  const exclusion = answer.data.exclusion;
  $("exclusion").textContent = exclusion ? fmt(exclusion.kind === "break" ? W.on_break : W.self_excluded, { until: when(exclusion.until) }) : "";
  const due = answer.data.reality_check_due;
  $("reality").hidden = !due;
  if (due) {
    $("reality-text").textContent = plural("reality", Math.floor(due.elapsed_s / 60), { wagered: due.wagered, net: due.net });
  }
  const activity = await api("GET", "/me/activity");
  const rows = $("activity").tBodies[0];
  rows.replaceChildren();
  if (activity.status === 200) {
    for (const key of ["stakes", "wins", "net", "deposits", "withdrawals", "net_deposits"]) {
      const row = el("tr"); row.append(el("th", W.activity[key]), el("td", String(activity.data[key]))); rows.append(row);
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
  $("limit-error").textContent = answer.status === 200 ? W.done : answer.status === 202 ? W.requested : message(answer);
  load();
});

$("reality-ack").addEventListener("click", async () => { await api("POST", "/me/reality-check"); load(); });

$("exclusion-form").addEventListener("submit", (event) => {
  // asked in the page's own words (a box of the page, not the browser's English confirm)
  event.preventDefault();
  $("exclusion-confirm").hidden = false;
  $("exclusion-no").focus();
});
$("exclusion-no").addEventListener("click", () => { $("exclusion-confirm").hidden = true; });
$("exclusion-yes").addEventListener("click", async () => {
  $("exclusion-confirm").hidden = true;
  const [kind, days] = $("exclusion-choice").value.split(":");
  const answer = await api("POST", "/me/exclusion", { kind, days: Number(days) });
  if (answer.status !== 201) { $("exclusion-error").textContent = message(answer); return; }
  // the exclusion revoked every token of the account, the cookie's included
  $("exclusion").textContent = fmt(W.started, { until: when(answer.data.until) });
  $("status").textContent = W.signed_out;
});

load();
