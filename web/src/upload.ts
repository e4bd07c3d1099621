import { ApiError, getToken, setToken, withLine } from './api';

/**
 * Sends a file with upload progress (fetch cannot report it, XMLHttpRequest can). Errors come back
 * as the API's problem detail, with the line number of a bad row.
 */
export function uploadFile<T>(
  url: string,
  file: File,
  contentType: string,
  onProgress: (sent: number, total: number) => void,
): Promise<{ status: number; data: T }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    const token = getToken();
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.setRequestHeader('content-type', contentType);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () =>
      reject(
        new ApiError(
          0,
          'The upload did not reach the server. Check that finwatch is running, then try again.',
        ),
      );
    xhr.onload = () => {
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(xhr.responseText) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve({ status: xhr.status, data: body as T });
        return;
      }
      if (xhr.status === 401) setToken(null);
      const detail = typeof body?.detail === 'string' ? body.detail : `The server answered ${xhr.status}.`;
      reject(new ApiError(xhr.status, withLine(detail, body?.line), body));
    };
    xhr.send(file);
  });
}
