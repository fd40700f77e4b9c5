import type { App } from '../../src';

export interface HttpAnswer {
  status: number;
  contentType: string;
  headers: Headers;
  body: { code: string; message: string; data?: unknown; total?: number; error?: string; field?: string; columns?: string[] };
  text: string;
}

/** One real HTTP request to a started app on loopback. */
export async function call(app: App, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const address = app.address();
  if (!address) throw new Error('the app is not listening');
  const response = await fetch(`http://127.0.0.1:${address.port}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: HttpAnswer['body'];
  try {
    parsed = JSON.parse(text) as HttpAnswer['body'];
  } catch {
    throw new Error(`${method} ${path} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', headers: response.headers, body: parsed, text };
}
