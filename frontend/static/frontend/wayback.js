// A tab's way back to the pair it left for another (sessionStorage: this tab's own, kept over
// a reload of the pair opened). A submit in the workspace and `n` on the adjudication page
// remember the pair they left and the pair they opened, so that `b` on the pair opened returns
// to the pair left rather than to the one before it in the queue or list.
export function wayBack(key) {
  return {
    // `opened` null: nothing to come back from (the way back is forgotten).
    remember(left, opened) {
      try {
        if (opened === null || opened === undefined) window.sessionStorage.removeItem(key);
        else window.sessionStorage.setItem(key, JSON.stringify({ left, opened }));
      } catch {
        // Storage disabled or full: b then follows the queue's or list's order.
      }
    },
    forget() {
      this.remember(null, null);
    },
    // The pair left for `opened`, or null when `opened` was reached another way.
    from(opened) {
      try {
        const record = JSON.parse(window.sessionStorage.getItem(key) || "null");
        const ok = record && record.opened === opened && Number.isInteger(record.left) && record.left !== opened;
        return ok ? record.left : null;
      } catch {
        return null;
      }
    },
  };
}
