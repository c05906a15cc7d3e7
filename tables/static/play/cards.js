"use strict";
// Cards of the Spanish/Italian 40-card pack, drawn by the project as SVG (no image files, no licence of others):
// coins (oros/denari) are gold discs, cups (copas/coppe) goblets, swords (espadas/spade) blades with a hilt,
// clubs (bastos/bastoni) knotted cudgels; 1-7 show that many pips, the jack (sota/fante), horse (caballo/cavallo)
// and king (rey/re) show their figure holding the suit. The rank is printed in two corners, as on Spanish cards.
// window.SevenHalfCards.svg(code) returns the markup of one card (code as in API.md: "12O"), or of a card back
// for null. Codes are checked against the 40 cards before anything is built from them.
(function () {
  const COLORS = { O: "#b07800", C: "#b3261e", E: "#1d4f91", B: "#2e6b1f" };
  const CODE = /^(1|2|3|4|5|6|7|10|11|12)([OCEB])$/;

  function pip(suit, x, y, s) {
    const c = COLORS[suit];
    const t = `translate(${x} ${y}) scale(${s})`;
    if (suit === "O") {  // a coin: gold disc, ring and a rosette
      return `<g transform="${t}"><circle r="6" fill="#f2c230" stroke="${c}" stroke-width="1.4"/>`
        + `<circle r="3.6" fill="none" stroke="${c}" stroke-width="0.9"/><circle r="1.3" fill="${c}"/></g>`;
    }
    if (suit === "C") {  // a cup: bowl, stem and foot
      return `<g transform="${t}"><path d="M-5.5 -6 H5.5 Q5.5 1 0 2 Q-5.5 1 -5.5 -6 Z" fill="${c}"/>`
        + `<rect x="-1" y="1.5" width="2" height="3" fill="${c}"/><path d="M-4 6.5 Q0 3.5 4 6.5 Z" fill="${c}"/>`
        + `<rect x="-5.5" y="-6.8" width="11" height="1.4" fill="#f2c230"/></g>`;
    }
    if (suit === "E") {  // a sword: blade, crossguard, grip and pommel
      return `<g transform="${t}"><path d="M0 -8 L1.4 -5.5 L1.4 3 L-1.4 3 L-1.4 -5.5 Z" fill="${c}"/>`
        + `<rect x="-4.5" y="3" width="9" height="1.5" rx="0.7" fill="#8a6d1a"/>`
        + `<rect x="-0.8" y="4.5" width="1.6" height="3" fill="#5b3a12"/><circle cy="8.2" r="1.2" fill="#8a6d1a"/></g>`;
    }
    // a club: a knotted cudgel, wider at the top
    return `<g transform="${t}"><path d="M-1.6 7.5 L-3.4 -5 Q0 -9 3.4 -5 L1.6 7.5 Z" fill="#7a4a1a" stroke="${c}" stroke-width="0.9"/>`
      + `<circle cx="-2.6" cy="-1" r="1" fill="${c}"/><circle cx="2.4" cy="1.5" r="1" fill="${c}"/>`
      + `<circle cx="-1.8" cy="3.5" r="0.9" fill="${c}"/></g>`;
  }

  // pip positions (in a 60 x 94 card) for 1 to 7
  const LAYOUT = {
    1: [[30, 47]],
    2: [[30, 24], [30, 70]],
    3: [[30, 20], [30, 47], [30, 74]],
    4: [[19, 24], [41, 24], [19, 70], [41, 70]],
    5: [[19, 24], [41, 24], [30, 47], [19, 70], [41, 70]],
    6: [[19, 20], [41, 20], [19, 47], [41, 47], [19, 74], [41, 74]],
    7: [[19, 18], [41, 18], [30, 33], [19, 50], [41, 50], [19, 76], [41, 76]],
  };

  function figure(rank, suit) {
    const c = COLORS[suit];
    const skin = "#f3d2b0", robe = suit === "O" || suit === "E" ? "#1d4f91" : "#b3261e";
    if (rank === 11) {  // the horse: a horse and its rider, the suit held high
      return `<path d="M14 80 L17 58 Q16 50 22 46 L38 44 Q44 40 46 32 L50 30 L50 38 Q48 46 44 50 L44 80 L40 80 L40 60 L22 60 L20 80 Z" fill="#7a4a1a"/>`
        + `<circle cx="30" cy="28" r="5" fill="${skin}"/><path d="M24 34 H36 L34 48 H26 Z" fill="${robe}"/>`
        + pip(suit, 17, 22, 1.0);
    }
    const head = `<circle cx="30" cy="${rank === 12 ? 27 : 24}" r="6" fill="${skin}"/>`;
    const crown = rank === 12 ? `<path d="M23 21 L24 14 L27 18 L30 12 L33 18 L36 14 L37 21 Z" fill="#f2c230" stroke="#8a6d1a" stroke-width="0.6"/>`
      : `<path d="M24 20 Q30 14 36 20 Z" fill="${robe}"/>`;
    const body = rank === 12
      ? `<path d="M20 82 L23 36 Q30 32 37 36 L40 82 Z" fill="${robe}"/><path d="M27 36 H33 L31 82 H29 Z" fill="#f2c230"/>`
      : `<path d="M22 62 L24 31 Q30 28 36 31 L38 62 Z" fill="${robe}"/><rect x="24" y="62" width="4" height="20" fill="#333"/>`
        + `<rect x="32" y="62" width="4" height="20" fill="#333"/>`;
    return body + head + crown + pip(suit, 44, rank === 12 ? 50 : 44, 1.1);
  }

  function svg(code) {
    if (code === null || code === undefined) {
      return `<svg viewBox="0 0 60 94" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">`
        + `<rect x="1" y="1" width="58" height="92" rx="5" fill="#7a1c1c" stroke="#fff" stroke-width="1.5"/>`
        + `<path d="M6 6 H54 V88 H6 Z" fill="none" stroke="#e0b14a" stroke-width="1"/>`
        + `<path d="M30 20 L44 47 L30 74 L16 47 Z" fill="#a33" stroke="#e0b14a"/></svg>`;
    }
    const match = CODE.exec(code);
    if (!match) return svg(null);
    const rank = Number(match[1]), suit = match[2], c = COLORS[suit];
    const inner = rank <= 7 ? LAYOUT[rank].map(([x, y]) => pip(suit, x, y, rank === 1 ? 2.2 : 1.15)).join("") : figure(rank, suit);
    return `<svg viewBox="0 0 60 94" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">`
      + `<rect x="1" y="1" width="58" height="92" rx="5" fill="#fffdf5" stroke="#333" stroke-width="1"/>`
      + `<path d="M3 3 H57 V91 H3 Z" fill="none" stroke="${c}" stroke-width="0.8" stroke-dasharray="3 2"/>`
      + inner
      + `<text x="5" y="12" font-size="10" font-weight="bold" font-family="sans-serif" fill="${c}">${rank}</text>`
      + `<text x="55" y="89" font-size="10" font-weight="bold" font-family="sans-serif" fill="${c}" text-anchor="end">${rank}</text>`
      + `</svg>`;
  }

  window.SevenHalfCards = { svg, CODE };
})();
