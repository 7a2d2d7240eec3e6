import { errorMessage } from '@tributary/contracts';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { AttemptOutcome, DeliveryJob } from '../delivery-types.js';

/** The operator's SMTP settings (TRIBUTARY_SMTP_URL, TRIBUTARY_SMTP_FROM, TRIBUTARY_OWNER_EMAIL). */
export interface EmailSettings {
  /** `smtp://user:pass@host:587` or `smtps://…`; nodemailer's connection URL. */
  readonly smtpUrl: string;
  readonly from: string;
  /** Where every `$.send.email` goes: the account owner (contract §6.1), never an address from code. */
  readonly ownerEmail: string;
  readonly timeoutMs: number;
}

export const DEFAULT_EMAIL_SUBJECT = 'Message from Tributary';

/** Sends `$.send.email` over SMTP; one transport (and its connection settings) per service. */
export function emailDeliverer(settings: EmailSettings): (job: DeliveryJob) => Promise<AttemptOutcome> {
  const options: SMTPTransport.Options & { url: string } = {
    url: settings.smtpUrl,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
  };
  const transport = nodemailer.createTransport(options);
  return async (job) => {
    const config = job.config;
    const text = typeof config['text'] === 'string' ? config['text'] : undefined;
    const html = typeof config['html'] === 'string' ? config['html'] : undefined;
    try {
      const info = await transport.sendMail({
        from: settings.from,
        to: settings.ownerEmail,
        subject: typeof config['subject'] === 'string' ? config['subject'] : DEFAULT_EMAIL_SUBJECT,
        ...(text !== undefined ? { text } : {}),
        ...(html !== undefined ? { html } : {}),
        ...(text === undefined && html === undefined ? { text: '' } : {}),
        headers: { 'X-Tributary-Delivery': job.id, 'X-Tributary-Run': job.runId },
      });
      return { ok: true, detail: String(info.response ?? 'sent') };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      const message = errorMessage(error);
      // A 5xx SMTP reply is a refusal (bad recipient, rejected content): the same mail is refused again.
      return { ok: false, detail: message, retry: code === undefined || code < 500 };
    }
  };
}
