/**
 * What makes the reference page (/docs, Redoc) pass WCAG 2.2 A and AA where Redoc's own options
 * cannot (test/browser/docs-page.test.ts runs axe over it at desktop and phone widths):
 *
 * - REDOC_THEME: Redoc's theme option, colours with at least 4.5:1 contrast on what they sit on;
 * - REFERENCE_CSS: an inline style sheet (the page's CSP allows inline styles, for Redoc's own):
 *   the code samples' token colours, which no option sets, and 24px targets;
 * - REFERENCE_SCRIPT: a script file served beside the Redoc bundle (scripts come from this origin
 *   only): it names Redoc's unnamed <select>s and makes a region that scrolls but holds nothing
 *   focusable focusable, so a keyboard can scroll it. Redoc renders late and again on navigation,
 *   so it runs on every change of the document, and marks <html data-reference-ready> once the
 *   operations are there.
 */

/** Colours: text #1a202c (15:1 on white), links and primary #1c4e80 (8:1), method labels white on 7:1+ fills. */
export const REDOC_THEME = {
  colors: {
    primary: { main: '#1c4e80' },
    success: { main: '#22543d' },
    warning: { main: '#744210' },
    error: { main: '#9b2c2c' },
    text: { primary: '#1a202c', secondary: '#4a5568' },
    border: { dark: '#4a5568', light: '#cbd5e0' },
    responses: {
      success: { color: '#22543d', backgroundColor: '#f0fff4', tabTextColor: '#ffffff' },
      error: { color: '#9b2c2c', backgroundColor: '#fff5f5', tabTextColor: '#ffffff' },
      redirect: { color: '#744210', backgroundColor: '#fffff0', tabTextColor: '#ffffff' },
      info: { color: '#1c4e80', backgroundColor: '#ebf8ff', tabTextColor: '#ffffff' },
    },
    http: {
      get: '#22543d',
      post: '#1c4e80',
      put: '#744210',
      options: '#2d3748',
      patch: '#553c9a',
      delete: '#9b2c2c',
      basic: '#2d3748',
      link: '#234e52',
      head: '#2d3748',
    },
  },
  schema: { typeNameColor: '#4a5568', typeTitleColor: '#1a202c', requireLabelColor: '#9b2c2c', linesColor: '#718096', nestedBackground: '#f7fafc' },
  typography: {
    fontSize: '15px',
    code: { color: '#1a202c', backgroundColor: '#edf2f7' },
    links: { color: '#1c4e80', visited: '#553c9a', hover: '#1a365d' },
  },
  sidebar: { backgroundColor: '#f7fafc', textColor: '#1a202c', activeTextColor: '#1c4e80' },
  rightPanel: { backgroundColor: '#1a202c', textColor: '#ffffff' },
  codeBlock: { backgroundColor: '#10141c' },
};

/**
 * What no theme option reaches: the headings of a section ("Authorizations:", "Request Body
 * schema:"), grey at half opacity in Redoc, and the code samples' token colours, each 7:1 or more
 * on the panel's #10141c and #1a202c.
 */
export const REFERENCE_CSS = `
body { margin: 0; padding: 0; }
.api-content h5, .api-content caption { color: #4a5568 !important; }
/* On a narrow screen the menu opens over the page with Redoc's round menu button below it: the
   menu ends above the button, so no item sits half under it (24px targets). */
@media screen and (max-width: 50rem) {
  .menu-content { height: calc(100vh - 116px) !important; }
}
.token.string, .token.attr-value { color: #9ae6b4 !important; }
.token.number, .token.boolean, .token.null, .token.keyword, .token.constant { color: #fbd38d !important; }
.token.property, .token.attr-name, .token.tag, .token.selector { color: #90cdf4 !important; }
.token.punctuation, .token.operator, .token.comment { color: #e2e8f0 !important; }
.redoc-json code, .redoc-json .collapser, .redoc-json .ellipsis, .redoc-json .token { color: #e2e8f0; }
.redoc-json .ellipsis:after { color: #e2e8f0 !important; }
.redoc-json .collapser { min-width: 24px; min-height: 24px; }
.redoc-json a { color: #90cdf4; }
:focus-visible { outline: 3px solid #b7791f !important; outline-offset: 2px; }
`;

/** Runs in the page (served as /docs/assets/reference-a11y.js): plain ES2017, no imports. */
export const REFERENCE_SCRIPT = `'use strict';
(function () {
  // A <select> Redoc renders with no name is named by what it chooses: the content type of the
  // heading it sits in ("Request Body schema: content type"), or the label beside it in a sample.
  function nameSelects() {
    document.querySelectorAll('select:not([aria-label]):not([aria-labelledby])').forEach(function (select) {
      if (select.labels && select.labels.length > 0) return;
      var heading = select.closest('h5');
      var before = select.parentElement && select.parentElement.previousElementSibling;
      var label = '';
      if (heading && heading.firstChild && heading.firstChild.nodeType === Node.TEXT_NODE) label = heading.firstChild.textContent.trim().replace(/:$/, '') + ': content type';
      else if (before && before.textContent) label = before.textContent.trim();
      select.setAttribute('aria-label', label || 'Choose an option');
    });
  }
  // A region that scrolls, with nothing in it a keyboard can reach, is made focusable itself.
  function scrollables() {
    var found = [];
    document.querySelectorAll('pre, div, ul, table, code').forEach(function (el) {
      if (el.hasAttribute('tabindex')) return;
      var wide = el.scrollWidth > el.clientWidth + 1;
      var tall = el.scrollHeight > el.clientHeight + 1;
      if (!wide && !tall) return;
      var style = getComputedStyle(el);
      var scrolls = (wide && /auto|scroll/.test(style.overflowX)) || (tall && /auto|scroll/.test(style.overflowY));
      if (scrolls) found.push(el);
    });
    found.forEach(function (el) {
      if (el.querySelector('a[href], button, input, select, textarea, [tabindex]')) return;
      el.setAttribute('tabindex', '0');
      if (!el.hasAttribute('role')) el.setAttribute('role', 'region');
      if (!el.hasAttribute('aria-label')) el.setAttribute('aria-label', el.tagName === 'PRE' || el.tagName === 'CODE' ? 'Code sample' : 'Scrollable content');
    });
  }
  // Redoc's round menu button (narrow screens) is a <div>: made a button a keyboard reaches.
  function menuButton() {
    var fab = document.querySelector('.menu-content + div');
    if (!fab) return;
    fab.setAttribute('aria-expanded', String(getComputedStyle(fab.previousElementSibling).display !== 'none'));
    if (fab.hasAttribute('role')) return;
    fab.setAttribute('role', 'button');
    fab.setAttribute('tabindex', '0');
    fab.setAttribute('aria-label', 'Menu');
    fab.addEventListener('keydown', function (event) {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      fab.click();
    });
  }
  var pending = false;
  function fix() {
    pending = false;
    nameSelects();
    scrollables();
    menuButton();
    if (document.querySelector('[data-section-id^="operation/"]')) document.documentElement.setAttribute('data-reference-ready', '');
  }
  function later() {
    if (pending) return;
    pending = true;
    setTimeout(fix, 100);
  }
  new MutationObserver(later).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ['class', 'style', 'hidden'] });
  window.addEventListener('resize', later);
  later();
})();
`;
