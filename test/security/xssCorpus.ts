// Cross-site scripting payloads a model, a tool, a pasted export or a file name could
// carry, and the check that a rendering of them is inert. Shared by the Markdown tests and
// the hostile-input suite, which runs every payload through every place outside text is shown.

/** Payloads a model (or a pasted export) could carry; each must render as inert text or markup. */
export const XSS_CORPUS: Record<string, string> = {
  'raw script': '<script>window.__pwned = 1</script>',
  'script split over lines': 'Look:\n\n<script>\nwindow.__pwned = 1\n</script>\n\ndone',
  'img onerror': '<img src=x onerror="window.__pwned=1">',
  'img onerror unquoted': '<IMG SRC=/ onerror=alert(1)>',
  'svg onload': '<svg onload=alert(1)><circle r="4"/></svg>',
  'svg with script': '<svg><script>alert(1)</script></svg>',
  iframe: '<iframe src="javascript:alert(1)"></iframe>',
  'iframe srcdoc': '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  'object and embed': '<object data="javascript:alert(1)"></object><embed src="data:text/html,<script>alert(1)</script>">',
  'anchor tag with javascript': '<a href="javascript:alert(1)">click</a>',
  'details ontoggle': '<details open ontoggle=alert(1)>x</details>',
  'body onload': '<body onload=alert(1)>',
  'style tag': '<style>body{background:url("javascript:alert(1)")}</style>',
  'form action': '<form action="javascript:alert(1)"><button>go</button></form>',
  'meta refresh': '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  'markdown javascript link': '[click me](javascript:alert(1))',
  'markdown JavaScript link, mixed case': '[click me](JaVaScRiPt:alert(1))',
  'markdown link with entity-encoded scheme': '[click me](java&#115;cript:alert(1))',
  'markdown link with &colon;': '[click me](javascript&colon;alert(1))',
  'markdown link with tab in scheme': '[click me](<java\tscript:alert(1)>)',
  'markdown link with leading spaces': '[click me](<  javascript:alert(1)>)',
  'markdown data link': '[click me](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  'markdown vbscript link': '[click me](vbscript:msgbox(1))',
  'autolink javascript': '<javascript:alert(1)>',
  'reference link javascript': '[click me][x]\n\n[x]: javascript:alert(1)',
  'markdown image javascript': '![alt](javascript:alert(1))',
  'markdown image data svg': '![alt](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  'markdown image with onerror in title': '![x](https://example.com/a.png "onerror=alert(1)")',
  'link title breaking out': '[x](https://example.com "\\" onmouseover=\\"alert(1)")',
  'image inside link': '[![a](x)](javascript:alert(1))',
  'html entities of a script tag': '&lt;script&gt;alert(1)&lt;/script&gt;',
  'numeric entities of a script tag': '&#60;script&#62;alert(1)&#60;/script&#62;',
  'html comment hiding a tag': '<!-- --><script>alert(1)</script><!-- -->',
  'code fence with html': '```html\n<script>alert(1)</script>\n```',
  'inline code with html': '`<img src=x onerror=alert(1)>`',
  'table cell with html': '| a |\n|---|\n| <img src=x onerror=alert(1)> |',
  'gfm autolink literal': 'www.example.com/<script>alert(1)</script>',
  'markdown link with a newline in the scheme': '[x](<java\nscript:alert(1)>)',
  'markdown link to data text/html': '[x](data:text/html,<script>alert(1)</script>)',
  'footnote holding a javascript link': 'See[^1].\n\n[^1]: [x](javascript:alert(1))',
  'svg xlink href': '<svg><a xlink:href="javascript:alert(1)"><text y="10">x</text></a></svg>',
  'math mglyph style mutation': '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  'base tag': '<base href="javascript:alert(1)//">',
  'link rel import': '<link rel=import href="data:text/html,<script>alert(1)</script>">',
  'input autofocus onfocus': '<input autofocus onfocus=alert(1)>',
  'video source onerror': '<video><source onerror="alert(1)"></video>',
  'marquee onstart': '<marquee onstart=alert(1)>x</marquee>',
  'template holding a script': '<template><script>alert(1)</script></template>',
  'noscript title breakout': '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  'css expression in a style attribute': '<div style="width: expression(alert(1))">x</div>',
  'template-engine injection': '{{constructor.constructor("alert(1)")()}} ${alert(1)} <%= alert(1) %>',
  'an __html object as text': '{"__html": "<img src=x onerror=alert(1)>"}',
  'null byte inside a tag name': '<scr\u0000ipt>alert(1)</scr\u0000ipt>',
  'button formaction': '<button formaction="javascript:alert(1)">x</button>',
  'anchor with an entity colon': '<a href="javascript&#58;alert(1)">x</a>',
  'attribute holding escaped markup': '<a title="&lt;img src=x onerror=alert(1)&gt;">x</a>',
  'right-to-left override hiding a scheme': '[x](\u202escript:alert(1))',
};

const DANGEROUS_SCHEME = /^(javascript|vbscript|data):/;

/** Why the rendered output is not inert, or [] when it is. */
export function hazards(root: HTMLElement): string[] {
  const found: string[] = [];
  for (const tag of ['script', 'iframe', 'object', 'embed', 'style', 'form', 'meta', 'base', 'link', 'svg', 'img']) {
    if (root.querySelector(tag)) found.push(`<${tag}> element`);
  }
  for (const el of Array.from(root.querySelectorAll('*'))) {
    for (const attr of Array.from(el.attributes)) {
      // Browsers ignore whitespace and control characters inside a URL's scheme.
      const value = Array.from(attr.value)
        .filter((c) => c.charCodeAt(0) > 0x20)
        .join('')
        .toLowerCase();
      if (attr.name.toLowerCase().startsWith('on')) found.push(`${attr.name} on <${el.tagName.toLowerCase()}>`);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'srcdoc', 'data'].includes(attr.name.toLowerCase()) && DANGEROUS_SCHEME.test(value)) {
        found.push(`${attr.name}="${attr.value}" on <${el.tagName.toLowerCase()}>`);
      }
      if (attr.name === 'style') found.push(`style attribute on <${el.tagName.toLowerCase()}>`);
    }
  }
  return found;
}
