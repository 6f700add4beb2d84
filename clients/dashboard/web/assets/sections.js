// Which collapsible sections of the transcript's items the reader opened or
// closed. An item is drawn afresh on every change (each frame of a streamed
// answer, a tool's result), so its <details> would come back in their
// default state, closing the Reasoning the reader just opened. A section the
// reader toggled keeps the state they gave it; the others follow their
// default (a tool's arguments open while it runs, closed once it is done).
// Pure: render_items.js asks it, and tells it what the reader did.
export class OpenSections {
  constructor() {
    this.chosen = new Map();  // "itemKey\u0000section" -> open
  }

  // Whether `section` of the item `itemKey` shows open, given the state it
  // has when the reader has not chosen.
  isOpen(itemKey, section, byDefault) {
    return this.chosen.get(`${itemKey}\u0000${section}`) ?? byDefault;
  }

  // The section now shows `open`: a state other than its default is the
  // reader's choice and is kept; the default one needs no memory.
  note(itemKey, section, open, byDefault) {
    const id = `${itemKey}\u0000${section}`;
    if (open === byDefault) this.chosen.delete(id);
    else this.chosen.set(id, open);
  }
}
