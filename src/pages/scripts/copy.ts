/**
 * "Copy" buttons (a new client secret, recovery codes): the text goes to the clipboard, and the
 * result is said in the button's result slot. Where the browser gives no clipboard (a page not
 * served over https or from localhost), the text is selected instead, for the person to copy.
 */
import { said } from './result.js';

export function copying(button: HTMLButtonElement, slot: string, what: string, source: () => HTMLElement): void {
  button.addEventListener('click', () => {
    const node = source();
    const text = node.innerText.trim();
    const selectIt = () => {
      const range = document.createRange();
      range.selectNodeContents(node);
      document.getSelection()?.removeAllRanges();
      document.getSelection()?.addRange(range);
      said(slot, `Selected ${what}: press Ctrl+C (⌘C on a Mac) to copy`);
    };
    if (!navigator.clipboard) return selectIt();
    navigator.clipboard.writeText(text).then(() => said(slot, `Copied ${what} to the clipboard`), selectIt);
  });
}
