// The little of the vendored libraries (../vendor/) that markdown.js uses, declared by hand
// so that tsc checks the app's calls without reading the libraries' own code. The
// patterns match the app's relative imports: tsconfig.json's noResolve keeps tsc from
// opening the files, and these declarations stand in for them. A new use of a library
// is declared here first.

/** marked 18: markdown to an HTML string. */
declare module "*/vendor/marked/marked.esm.js" {
  /** What a renderer hook is handed (only the fields the app reads). */
  interface Token {
    text: string;
    lang?: string;
    checked?: boolean;
  }

  interface MarkedOptions {
    gfm?: boolean;
    breaks?: boolean;
    async?: false;
    renderer?: Partial<Record<"html" | "code" | "checkbox", (token: Token) => string>>;
  }

  /** An instance with its own options (never the shared global one). */
  export class Marked {
    constructor(options: MarkedOptions);
    /** Synchronous, as `async: false` makes it. */
    parse(source: string): string;
  }
}

/** DOMPurify 3: sanitises HTML against an allow-list. */
declare module "*/vendor/dompurify/purify.es.js" {
  interface AttributeHookData {
    attrName: string;
    attrValue: string;
  }

  interface Config {
    ALLOWED_TAGS?: string[];
    ALLOWED_ATTR?: string[];
    ALLOWED_URI_REGEXP?: RegExp;
    ALLOW_DATA_ATTR?: boolean;
    ALLOW_ARIA_ATTR?: boolean;
    ALLOW_UNKNOWN_PROTOCOLS?: boolean;
    RETURN_DOM_FRAGMENT: true;
  }

  interface Purifier {
    addHook(
      name: "uponSanitizeAttribute",
      hook: (node: Element, data: AttributeHookData) => void,
    ): void;
    /** With RETURN_DOM_FRAGMENT, a fragment of DOMPurify's own inert document. */
    sanitize(dirty: string, config: Config): DocumentFragment;
  }

  /** A purifier of its own for `window`. */
  const createPurifier: (window: Window) => Purifier;
  export default createPurifier;
}

/** highlight.js 11's ES module build with its common languages. */
declare module "*/vendor/highlight/highlight.min.js" {
  interface HighlightResult {
    /** The code as HTML: escaped text in `<span class>` elements. */
    value: string;
  }

  interface HighlightJs {
    getLanguage(name: string): object | undefined;
    highlight(code: string, options: { language: string; ignoreIllegals: boolean }): HighlightResult;
  }

  const hljs: HighlightJs;
  export default hljs;
}
