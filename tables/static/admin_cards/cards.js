"use strict";
// The admin draws the player client's cards (play/cards.js): every chip with a card code gets the card's picture,
// its name staying as the chip's text for screen readers and copy-paste. No card without a code is drawn (a face
// down card hidden while the hand is in play stays a back).
document.addEventListener("DOMContentLoaded", () => {
  for (const chip of document.querySelectorAll(".card[data-card]")) {
    const picture = document.createElement("span");
    picture.className = "card-face";
    picture.setAttribute("aria-hidden", "true");
    picture.innerHTML = window.SevenHalfCards.svg(chip.dataset.card);  // built only from a checked card code
    chip.prepend(picture);
  }
});
