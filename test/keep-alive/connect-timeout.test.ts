import { AppServer, decideKeepAlive, lostSynsSurvived, SYN_RETRANSMIT_SECONDS } from '../../src/decisions/keep-alive';

/**
 * The connect timeout's reason states what it survives, from Linux's SYN retransmission schedule
 * (initial RTO 1 s, doubling: include/net/tcp.h TCP_TIMEOUT_INIT, net/ipv4/tcp_timer.c).
 */
describe('the connect timeout against the kernel\'s SYN retransmissions', () => {
  test('retransmissions 1, 3, 7, 15, 31, 63 s after the first SYN; a timeout survives those sent before it', () => {
    expect([...SYN_RETRANSMIT_SECONDS]).toEqual([1, 3, 7, 15, 31, 63]);
    expect(lostSynsSurvived(1)).toBe(0); // the retransmission at 1 s is answered after the 1 s timeout
    expect(lostSynsSurvived(3)).toBe(1);
    expect(lostSynsSurvived(10)).toBe(3);
  });

  test('gunicorn (2 s keep-alive, idle 1 s): the reason says one lost SYN is a 503, and what would survive it', () => {
    const d = decideKeepAlive({ appServer: AppServer.gunicornGthread() });
    expect(d.connectTimeoutSeconds.value).toBe(1);
    expect(d.connectTimeoutSeconds.reason).toContain('so a connect timeout of 1 s survives no lost SYN: each one is a 503 UF (docs/mechanisms.md#a-lost-syn-and-the-connect-timeout)');
    expect(d.connectTimeoutSeconds.reason).toContain('Envoy starts the idle timer before the connection is established');
    expect(d.connectTimeoutSeconds.reason).not.toContain('a lost SYN is re-sent after 1 s.');
  });

  test('uvicorn (idle 3 s) survives one lost SYN; Envoy\'s 10 s default three', () => {
    expect(decideKeepAlive({ appServer: AppServer.uvicorn() }).connectTimeoutSeconds.reason).toContain('a connect timeout of 3 s survives 1 lost SYN in a row (the next retransmission, 3 s after the first, comes too late)');
    expect(decideKeepAlive({ appServer: AppServer.nginx() }).connectTimeoutSeconds.reason).toContain('a connect timeout of 10 s survives 3 lost SYNs in a row (the next retransmission, 15 s after the first, comes too late)');
  });
});
