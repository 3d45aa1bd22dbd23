/** What the chips show of an attachment; its text stays in storage. */
export interface AttachmentInfo {
  id: string;
  conversationId: string;
  name: string;
  /** UTF-8 bytes of the stored text. */
  size: number;
  createdAt: number;
}
