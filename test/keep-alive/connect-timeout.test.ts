import { AppServer, decideKeepAlive, idleTimeoutFor, lostSynsSurvived, lostSynsSurvivedOn, SYN_RETRANSMIT_SECONDS, SYN_RETRANSMIT_SECONDS_LINEAR } from '../../src/decisions/keep-alive';

/**
 * The connect timeout's reason states what it survives, from Linux's SYN retransmission schedules:
 * initial RTO 1 s (include/net/tcp.h TCP_TIMEOUT_INIT); before 6.5 it doubles at every timeout; from
 * 6.5 on (commit ccce324dabfe) net/ipv4/tcp_timer.c tcp_retransmit_timer doubles it only once the
 * socket's total_rto exceeds net.ipv4.tcp_syn_linear_timeouts (default 4), and tcp_write_timeout
 * allows tcp_syn_retries (6) + tcp_syn_linear_timeouts retransmissions.
 */
function kernelSchedule(linearTimeouts: number, synRetries = 6): number[] {
  const out: number[] = [];
  let rto = 1;
  let t = 0;
  let totalRto = 0;
  for (let i = 0; i < synRetries + linearTimeouts; i++) {
    t += rto; // the timer fires: tcp_update_rto_stats, the SYN goes out again
    out.push(t);
    totalRto++;
    if (totalRto > linearTimeouts) rto *= 2; // else: SYN_SENT within the linear timeouts keeps the RTO
  }
  return out;
}

describe('the connect timeout against the kernel\'s SYN retransmissions', () => {
  test('the schedules follow the kernel\'s rule: 1, 3, 7, 15, 31, 63 s before 6.5, 1, 2, 3, 4, 5, 7, 11, ... from 6.5 on; a timeout survives those sent before it, and the stated figure is the worse one', () => {
    expect([...SYN_RETRANSMIT_SECONDS]).toEqual(kernelSchedule(0));
    expect([...SYN_RETRANSMIT_SECONDS_LINEAR]).toEqual(kernelSchedule(4));
    expect([...SYN_RETRANSMIT_SECONDS_LINEAR]).toEqual([1, 2, 3, 4, 5, 7, 11, 19, 35, 67]);
    expect(lostSynsSurvived(1)).toBe(0); // the retransmission at 1 s is answered after the 1 s timeout
    expect([2, 3, 10].map((s) => [lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS), lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS_LINEAR)])).toEqual([[1, 1], [1, 2], [3, 6]]);
    expect([2, 3, 10].map(lostSynsSurvived)).toEqual([1, 1, 3]);
    for (let s = 0.5; s <= 70; s += 0.5) expect(lostSynsSurvived(s)).toBe(Math.min(lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS), lostSynsSurvivedOn(s, SYN_RETRANSMIT_SECONDS_LINEAR)));
  });

  test('gunicorn (2 s keep-alive, idle 1 s): the reason says one lost SYN is a 503, and what would survive it', () => {
    const d = decideKeepAlive({ appServer: AppServer.gunicornGthread() });
    expect(d.connectTimeoutSeconds.value).toBe(1);
    expect(d.connectTimeoutSeconds.reason).toContain('so a connect timeout of 1 s survives no lost SYN on any kernel: each one is a 503 UF (docs/mechanisms.md#a-lost-syn-and-the-connect-timeout)');
    expect(d.connectTimeoutSeconds.reason).toContain('Envoy starts the idle timer before the connection is established');
    expect(d.connectTimeoutSeconds.reason).not.toContain('a lost SYN is re-sent after 1 s.');
  });

  test('the advice to survive one lost SYN names the smallest idle timeout that does, and the keep-alive that gives it', () => {
    const reason = decideKeepAlive({ appServer: AppServer.gunicornGthread() }).connectTimeoutSeconds.reason;
    const m = /raising it until the idle timeout is (\d+) s or more \(an app keep-alive of (\d+) s gives that\) lets a connect survive one lost SYN on any kernel/.exec(reason);
    expect(m).not.toBeNull();
    const idle = Number(m![1]);
    expect(lostSynsSurvived(idle)).toBe(1);
    expect(lostSynsSurvived(idle - 1)).toBe(0);
    const ka = Number(m![2]);
    expect(idleTimeoutFor(ka)).toBeGreaterThanOrEqual(idle);
    expect(idleTimeoutFor(ka - 1) ?? 0).toBeLessThan(idle);
  });

  test('uvicorn (idle 3 s) survives at least one lost SYN, two from Linux 6.5 on; Envoy\'s 10 s default at least three, six from 6.5 on', () => {
    expect(decideKeepAlive({ appServer: AppServer.uvicorn() }).connectTimeoutSeconds.reason).toContain('a connect timeout of 3 s survives at least 1 lost SYN in a row: 1 on kernels before 6.5 (the next retransmission, 3 s after the first, comes too late), 2 from 6.5 on');
    expect(decideKeepAlive({ appServer: AppServer.nginx() }).connectTimeoutSeconds.reason).toContain('a connect timeout of 10 s survives at least 3 lost SYNs in a row: 3 on kernels before 6.5 (the next retransmission, 15 s after the first, comes too late), 6 from 6.5 on');
  });
});
