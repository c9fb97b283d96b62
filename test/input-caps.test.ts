import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { main } from '../src/cli/main';
import { readFiles } from '../src/diff/sources';
import { Measurements } from '../src/measure/measurements';
import { MAX_RESPONSE_BYTES, PrometheusClient } from '../src/measure/prometheus';

/** Every command that reads a file or a response caps its size and names what it read. */
describe('bounded inputs', () => {
  const saved = process.env.ROLLWISE_MAX_INPUT_BYTES;
  beforeEach(() => {
    process.env.ROLLWISE_MAX_INPUT_BYTES = '4096';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.ROLLWISE_MAX_INPUT_BYTES;
    else process.env.ROLLWISE_MAX_INPUT_BYTES = saved;
  });

  test('rehearse stops /dev/zero at the cap, naming it', async () => {
    let err = '';
    const code = await main(
      ['node', 'rollwise', 'rehearse', '/dev/zero'],
      () => undefined,
      (t) => {
        err += t;
      },
    );
    expect(code).toBe(2);
    expect(err).toContain('/dev/zero is more than 4096 bytes, above the input cap');
  });

  test('diff reads a folder side with the cap', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-caps-'));
    try {
      fs.writeFileSync(path.join(dir, 'big.k8s.yaml'), 'x'.repeat(5000));
      expect(() => readFiles({ type: 'folder', dir } as never, ['big.k8s.yaml'])).toThrow(
        /big\.k8s\.yaml is 5000 bytes, above the input cap of 4096 bytes/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a measurements file is read with the cap and named', () => {
    expect(() => Measurements.fromFile('/dev/zero')).toThrow(
      /measurements = \/dev\/zero: the file cannot be read \(\/dev\/zero is more than 4096 bytes/,
    );
  });
});

describe('measure: a response that never ends is cut at the cap, naming the server', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const push = () => {
        while (res.write(chunk));
      };
      res.on('drain', push);
      push();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('instant query', async () => {
    const client = new PrometheusClient({ url, timeoutMs: 60_000 });
    await expect(client.instant('up', 0)).rejects.toThrow(
      new RegExp(`Prometheus at ${url.replace(/[.]/g, '\\.')}.*more than ${MAX_RESPONSE_BYTES} bytes`),
    );
  }, 60_000);
});
